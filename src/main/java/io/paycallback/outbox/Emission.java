package io.paycallback.outbox;

import io.paycallback.lease.RowLease;
import io.paycallback.lease.LeasedRow;

/**
 * An event row as its writer left it, to be acted on once the writer's transaction has committed.
 */
public sealed interface Emission {

    /**
     * A row for a real destination, written already leased by the writer, so the relay can deliver it right after the
     * commit without another write and without reading it back; should that never happen, the lease lapses and the
     * scanner delivers it.
     */
    record ToDeliver(RowLease lease, PendingEvent event) implements Emission, LeasedRow {
    }

    /** A row for the built-in log destination, written delivered: it is logged after the commit. */
    record ToLog(String idempotencyKey, String payload) implements Emission {
    }
}
