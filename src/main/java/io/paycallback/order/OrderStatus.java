package io.paycallback.order;

/**
 * PENDING → PAID (a payment), → CLOSED (closed at the providers, or here only for a merchant without their API keys),
 * → CLOSING (the providers not reached yet). CLOSING → CLOSED once they say so, → PAID when a payment comes first: the
 * money was taken. PAID → REFUNDED when its payment is refunded in full.
 */
public enum OrderStatus {
    PENDING,
    PAID,
    CLOSING,
    CLOSED,
    REFUNDED,
    /**
     * A status a newer (or, after a rollback, an older) release wrote and this build does not know: shown as stored,
     * never decided on here (see {@link io.paycallback.db.UnknownValueException}).
     */
    UNKNOWN;

    /** The stored status; {@link #UNKNOWN} for one this build does not know. */
    public static OrderStatus stored(String value) {
        for (OrderStatus status : values()) {
            if (status != UNKNOWN && status.name().equals(value)) {
                return status;
            }
        }
        return UNKNOWN;
    }
}
