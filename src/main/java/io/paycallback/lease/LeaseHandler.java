package io.paycallback.lease;

import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlClient;

import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

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
    Attempted attempt(List<LeasedRow> batch);

    /**
     * Tries the batch like {@link #attempt}, for a handler whose tries wait on something outside the database (an HTTP
     * answer): returns once the tries are under way, and hands each part of the batch to {@code settle} as soon as that
     * part's outcome is known, from any thread, so the worker thread is free at once and no row waits for another
     * row's answer. Every row of the batch is in exactly one part. {@code settle} never blocks. The default tries the
     * whole batch on the calling thread, as one part.
     */
    default void start(List<LeasedRow> batch, Consumer<Attempted> settle) {
        settle.accept(attempt(batch));
    }

    /**
     * For a table whose rows go to independent lanes (the outbox: one per destination): the column naming a row's lane,
     * and how many more rows each lane can take now. The scanner then leases each lane's due rows apart, at most its
     * room, and hands them over without waiting for their outcome, so a full or slow lane never holds back another or
     * the scan; a lane that drains asks for more itself ({@link Worker#refill}). Rows of no lane (a destination no longer
     * configured) are leased as before, when no lane is backed up. Empty: one queue for the whole table.
     */
    default Optional<Lanes> lanes() {
        return Optional.empty();
    }

    /**
     * A scan lost its race for the lane's due rows (a deadlock with another statement over the same index range, every
     * time it was tried) and leased none of them: the lane must ask for them itself soon, since an empty lane has
     * nothing else to wake it before the next scan.
     */
    default void laneContested(String lane) {
    }

    /**
     * When a failed row is tried again and when it is given up on: the handler's own schedule, or empty for the one
     * every table shares ({@code paycallback.retry.backoff}).
     */
    default Optional<RetryPolicy> retryPolicy() {
        return Optional.empty();
    }

    /** After a row's last try failed, inside the transaction that buries it: what a person must be told. */
    Uni<AfterCommit> giveUp(SqlClient transaction, RowLease lease, String reason);

    /**
     * Records what a failed try did outside the database (an HTTP call), inside the transaction that reschedules or
     * buries the row, or on its own when the lease turned out to be lost.
     */
    default Uni<Void> recordFailure(SqlClient client, RowLease lease, RuntimeException failure) {
        return Uni.createFrom().voidItem();
    }
}
