package io.paycallback.callback;

import io.paycallback.channel.CallbackOutcome;

import java.util.Locale;

/** What became of one callback: the metric's outcome tag, and the answer the provider gets for it. */
public enum CallbackResult {
    NEW(CallbackOutcome.ACCEPTED),
    DUPLICATE(CallbackOutcome.ACCEPTED),
    IGNORED(CallbackOutcome.ACCEPTED),
    BAD_SIGNATURE(CallbackOutcome.BAD_SIGNATURE),
    MALFORMED(CallbackOutcome.MALFORMED),
    REJECTED_BUSY(CallbackOutcome.BUSY),
    STORE_FAILED(CallbackOutcome.STORE_FAILED),
    TOO_LARGE(CallbackOutcome.TOO_LARGE),
    UNKNOWN_MERCHANT(CallbackOutcome.UNKNOWN_MERCHANT);

    private final CallbackOutcome outcome;

    CallbackResult(CallbackOutcome outcome) {
        this.outcome = outcome;
    }

    public CallbackOutcome outcome() {
        return outcome;
    }

    public String tag() {
        return name().toLowerCase(Locale.ROOT);
    }
}
