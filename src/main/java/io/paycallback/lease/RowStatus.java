package io.paycallback.lease;

import com.fasterxml.jackson.annotation.JsonValue;

import java.util.Locale;
import java.util.Optional;

/**
 * The status column of every leased table. COMPACTED is DONE with the raw body blanked by housekeeping: a status of
 * its own, so finding bodies still to blank is a range on the (status, next_retry_at) index, not a table scan.
 */
public enum RowStatus {
    PENDING(0),
    DONE(1),
    DEAD(2),
    COMPACTED(3),
    /** A status a newer (or, after a rollback, an older) release stored and this build does not know. */
    UNKNOWN(-1);

    private final int code;

    RowStatus(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    /** The stored status; {@link #UNKNOWN} for a code this build does not know. */
    public static RowStatus of(int code) {
        for (RowStatus status : values()) {
            if (status != UNKNOWN && status.code == code) {
                return status;
            }
        }
        return UNKNOWN;
    }

    public static Optional<RowStatus> named(String name) {
        for (RowStatus status : values()) {
            if (status != UNKNOWN && status.name().equalsIgnoreCase(name)) {
                return Optional.of(status);
            }
        }
        return Optional.empty();
    }

    /** How the API writes a status: the lower-case name. */
    @JsonValue
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
