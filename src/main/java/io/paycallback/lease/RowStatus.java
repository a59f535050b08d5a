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
    COMPACTED(3);

    private final int code;

    RowStatus(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    public static RowStatus of(int code) {
        for (RowStatus status : values()) {
            if (status.code == code) {
                return status;
            }
        }
        throw new IllegalArgumentException("unknown status " + code);
    }

    public static Optional<RowStatus> named(String name) {
        for (RowStatus status : values()) {
            if (status.name().equalsIgnoreCase(name)) {
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
