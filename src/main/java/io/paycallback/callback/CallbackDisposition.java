package io.paycallback.callback;

import io.paycallback.channel.AnswerKind;

import java.util.Locale;

/**
 * What the callback service did with one callback (reserved new, a duplicate, ignored, or why it was refused): the
 * metric's outcome tag, and the kind of answer the provider gets for it.
 */
public enum CallbackDisposition {
    NEW(AnswerKind.ACCEPTED),
    DUPLICATE(AnswerKind.ACCEPTED),
    IGNORED(AnswerKind.ACCEPTED),
    BAD_SIGNATURE(AnswerKind.BAD_SIGNATURE),
    MALFORMED(AnswerKind.MALFORMED),
    REJECTED_BUSY(AnswerKind.BUSY),
    STORE_FAILED(AnswerKind.STORE_FAILED),
    TOO_LARGE(AnswerKind.TOO_LARGE),
    UNKNOWN_MERCHANT(AnswerKind.UNKNOWN_MERCHANT);

    private final AnswerKind outcome;

    CallbackDisposition(AnswerKind outcome) {
        this.outcome = outcome;
    }

    public AnswerKind answerKind() {
        return outcome;
    }

    public String tag() {
        return name().toLowerCase(Locale.ROOT);
    }
}
