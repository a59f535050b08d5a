package io.paycallback.order;

/** A row of the refunds table: requested by us and not yet answered, or settled by the provider's notice. */
public enum RefundStatus {
    REQUESTED,
    SUCCEEDED,
    FAILED
}
