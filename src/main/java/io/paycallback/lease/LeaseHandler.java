package io.paycallback.lease;

import io.paycallback.lease.Lease;
import io.paycallback.lease.Leased;
import io.paycallback.lease.LeasedTable;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlClient;

import java.util.List;

/**
 * What one leased table does with its rows, resolved by the table the way a scheduler resolves a task's execution and
 * failure handlers by name. The retry package owns leases, batches and backoff; a handler owns the business of a try.
 * A new leased table is one new handler.
 */
public interface LeaseHandler {

    LeasedTable table();

    /**
     * Whether rows may be tried together. Tables whose try calls a provider answer false: such a call must never run
     * inside a database transaction, so there is nothing to share between rows.
     */
    boolean batches();

    /** Every result tag a successful try may report, so each metric series exists from start-up. */
    List<String> results();

    /**
     * Tries every row of the batch, all of one table; blocks (always on a worker thread). A row's own failure is its
     * {@link Tried.Failed}, never an exception that takes the other rows with it.
     */
    Attempted attempt(List<Leased> batch);

    /** After a row's last try failed, inside the transaction that buries it: what a person must be told. */
    Uni<AfterCommit> giveUp(SqlClient transaction, Lease lease, String reason);

    /**
     * Records what a failed try did outside the database (an HTTP call), inside the transaction that reschedules or
     * buries the row, or on its own when the lease turned out to be lost.
     */
    default Uni<Void> recordFailure(SqlClient client, Lease lease, RuntimeException failure) {
        return Uni.createFrom().voidItem();
    }
}
