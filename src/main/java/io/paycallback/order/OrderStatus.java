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
    REFUNDED
}
