package io.paycallback.order;

/**
 * A row of the refunds table: requested by us, then accepted by the provider (submitted), and settled by the
 * provider's notice or answer.
 */
public enum RefundStatus {
    REQUESTED,
    SUBMITTED,
    SUCCEEDED,
    FAILED;

    public boolean settled() {
        return this == SUCCEEDED || this == FAILED;
    }
}
