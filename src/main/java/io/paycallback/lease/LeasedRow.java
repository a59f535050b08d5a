package io.paycallback.lease;

/**
 * A row held under a lease, on its way to a worker: the bare lease, or the lease with the row's columns when its writer
 * already has them in hand (so the worker does not read the row back).
 */
public interface LeasedRow {
    RowLease lease();
}
