package io.paycallback.delivery;

import com.fasterxml.jackson.annotation.JsonValue;
import io.quarkus.runtime.annotations.RegisterForReflection;

import java.util.Locale;

/** What one HTTP try of an outbox event came to, as the destination (or its absence) decided it. */
@RegisterForReflection
public enum DeliveryResult {
    /** A 2xx answer: the destination has the event. */
    DELIVERED,
    /** Any other HTTP status: the destination answered and did not take it. */
    REFUSED,
    /** No answer at all: timeout, connection error, or a destination that is not configured. */
    FAILED,
    /** A value a newer (or, after a rollback, an older) release stored and this build does not know. */
    UNKNOWN;

    @JsonValue
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The stored result; {@link #UNKNOWN} for one this build does not know. */
    static DeliveryResult of(String label) {
        for (DeliveryResult result : values()) {
            if (result != UNKNOWN && result.label().equals(label)) {
                return result;
            }
        }
        return UNKNOWN;
    }
}
