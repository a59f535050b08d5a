package io.paycallback.delivery;

import io.paycallback.lease.Attempted;
import io.paycallback.lease.RowLease;
import io.paycallback.outbox.PendingEvent;

import java.util.function.Consumer;

/**
 * A leased event on its way to its destination.
 *
 * @param settle    where its outcome goes: the lease engine's bookkeeping of the batch it came in
 * @param heldSince {@link System#nanoTime()} when this instance took it, to know how much of its lease is left
 */
record Delivery(RowLease lease, PendingEvent event, Consumer<Attempted> settle, long heldSince) {
}
