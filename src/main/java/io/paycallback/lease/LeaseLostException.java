package io.paycallback.lease;

/** The row's lease went to another worker (or the row is no longer pending): whatever this worker did must not count. */
public class LeaseLostException extends RuntimeException {

    public LeaseLostException(RowLease lease) {
        super("lease on " + lease.table().table() + " #" + lease.id() + " is no longer held");
    }

    public LeaseLostException(String message) {
        super(message);
    }
}
