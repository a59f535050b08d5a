package io.paycallback.channel;

import java.util.function.UnaryOperator;

/**
 * How one provider writes its answers. The statuses are the shared table on {@link AnswerKind}; a provider only says
 * how a body looks, and which status it wants for a bad signature.
 *
 * @param refusedBody the body for a refusal, from a fixed ASCII phrase of {@link AnswerKind} (so no escaping is needed)
 */
public record AnswerFormat(String contentType, String acceptedBody, UnaryOperator<String> refusedBody,
                           int badSignatureStatus) {

    public FormattedAnswer answer(AnswerKind outcome) {
        int status = outcome == AnswerKind.BAD_SIGNATURE ? badSignatureStatus : outcome.status();
        return new FormattedAnswer(status, contentType,
                outcome == AnswerKind.ACCEPTED ? acceptedBody : refusedBody.apply(outcome.phrase()));
    }
}
