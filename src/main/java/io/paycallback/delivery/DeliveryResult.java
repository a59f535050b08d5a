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
    FAILED;

    @JsonValue
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    static DeliveryResult of(String label) {
        return valueOf(label.toUpperCase(Locale.ROOT));
    }
}
