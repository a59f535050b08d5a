package io.paycallback.channel;

/**
 * How one provider writes its answers. The statuses are the shared table on {@link Outcome}; a provider only says
 * how a body looks, and may differ in a status where its documentation asks for another.
 */
public interface AnswerFormat {

    String contentType();

    String acceptedBody();

    /** @param phrase a fixed ASCII phrase from {@link Outcome}, so no escaping is needed */
    String refusedBody(String phrase);

    default int status(Outcome outcome) {
        return outcome.status();
    }

    default Answer answer(Outcome outcome) {
        return new Answer(status(outcome), contentType(),
                outcome == Outcome.ACCEPTED ? acceptedBody() : refusedBody(outcome.phrase()));
    }
}
