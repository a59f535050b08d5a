package io.paycallback.channel;

import java.util.function.UnaryOperator;

/**
 * How one provider writes its answers. The statuses are the shared table on {@link CallbackOutcome}; a provider only says
 * how a body looks, and which status it wants for a bad signature.
 *
 * @param refusedBody the body for a refusal, from a fixed ASCII phrase of {@link CallbackOutcome} (so no escaping is needed)
 */
public record AnswerFormat(String contentType, String acceptedBody, UnaryOperator<String> refusedBody,
                           int badSignatureStatus) {

    public CallbackAnswer answer(CallbackOutcome outcome) {
        int status = outcome == CallbackOutcome.BAD_SIGNATURE ? badSignatureStatus : outcome.status();
        return new CallbackAnswer(status, contentType,
                outcome == CallbackOutcome.ACCEPTED ? acceptedBody : refusedBody.apply(outcome.phrase()));
    }
}
