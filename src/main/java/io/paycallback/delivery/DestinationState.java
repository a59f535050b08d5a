package io.paycallback.delivery;

import com.fasterxml.jackson.annotation.JsonValue;
import io.quarkus.runtime.annotations.RegisterForReflection;

import java.util.Locale;

/**
 * A destination's circuit, the same on every instance (table {@code destination_circuits}). The code is the value of
 * {@code paycallback_destination_state}.
 */
@RegisterForReflection
public enum DestinationState {
    /** Events are delivered as they come. */
    CLOSED(0),
    /** Too many tries failed: its events wait without spending tries, and one is sent as a probe every interval. */
    OPEN(1),
    /** Open, and a probe is under way: its answer closes the circuit or keeps it open. */
    HALF_OPEN(2),
    /** Answered 410 Gone, stayed open past disable-after, or an operator disabled it: its events wait for an operator. */
    DISABLED(3);

    private final int code;

    DestinationState(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    /** Whether its events are sent as they come. */
    public boolean delivers() {
        return this == CLOSED;
    }

    @JsonValue
    public String label() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
}
