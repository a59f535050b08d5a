package io.paycallback.order;

/**
 * A row of the refunds table: requested by us, then accepted by the provider (submitted), and settled by the
 * provider's notice or answer.
 */
public enum RefundStatus {
    REQUESTED,
    SUBMITTED,
    SUCCEEDED,
    FAILED,
    /** A value a newer (or, after a rollback, an older) release stored and this build does not know. */
    UNKNOWN;

    /** The stored value; {@link #UNKNOWN} for one this build does not know. */
    public static RefundStatus stored(String value) {
        for (RefundStatus known : values()) {
            if (known != UNKNOWN && known.name().equals(value)) {
                return known;
            }
        }
        return UNKNOWN;
    }

    public boolean settled() {
        return this == SUCCEEDED || this == FAILED;
    }
}
