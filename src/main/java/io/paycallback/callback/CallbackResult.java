package io.paycallback.callback;

import io.paycallback.channel.Outcome;

import java.util.Locale;

/** What became of one callback: the metric's outcome tag, and the answer the provider gets for it. */
public enum CallbackResult {
    NEW(Outcome.ACCEPTED),
    DUPLICATE(Outcome.ACCEPTED),
    IGNORED(Outcome.ACCEPTED),
    BAD_SIGNATURE(Outcome.BAD_SIGNATURE),
    MALFORMED(Outcome.MALFORMED),
    REJECTED_BUSY(Outcome.BUSY),
    STORE_FAILED(Outcome.STORE_FAILED),
    TOO_LARGE(Outcome.TOO_LARGE),
    UNKNOWN_MERCHANT(Outcome.UNKNOWN_MERCHANT);

    private final Outcome outcome;

    CallbackResult(Outcome outcome) {
        this.outcome = outcome;
    }

    public Outcome outcome() {
        return outcome;
    }

    public String tag() {
        return name().toLowerCase(Locale.ROOT);
    }
}
