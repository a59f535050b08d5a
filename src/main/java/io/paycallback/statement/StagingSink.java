package io.paycallback.statement;

import io.paycallback.statement.bill.BillException;
import io.paycallback.statement.bill.BillLine;
import io.paycallback.statement.bill.BillSink;
import io.paycallback.statement.bill.BillTotals;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Tuple;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Takes a bill's lines as the reader produces them and writes them to the staging table, {@code batch} at a time, so
 * at most one batch is ever in memory. Lines are numbered in arrival order across the whole bill (Stripe numbers
 * them per page). Every so often it also keeps the run's lease, through {@code heartbeat}.
 */
final class StagingSink implements BillSink {

    private final Pool pool;
    private final StatementLines lines;
    private final long runId;
    private final int batch;
    private final Duration timeout;
    private final Runnable heartbeat;
    private final List<Tuple> pending;
    private BillTotals totals = BillTotals.EMPTY;
    private long count;

    StagingSink(Pool pool, StatementLines lines, long runId, int batch, Duration timeout, Runnable heartbeat) {
        this.pool = pool;
        this.lines = lines;
        this.runId = runId;
        this.batch = batch;
        this.timeout = timeout;
        this.heartbeat = heartbeat;
        this.pending = new ArrayList<>(batch);
    }

    @Override
    public void accept(BillLine line) throws BillException {
        count++;
        pending.add(StatementLines.row(runId, count, line));
        totals = totals.plus(line);
        if (pending.size() == batch) {
            flush();
        }
    }

    /** Writes what is left; call once the reader returned. */
    void flush() {
        if (!pending.isEmpty()) {
            lines.insert(pool, pending).await().atMost(timeout);
            pending.clear();
            heartbeat.run();
        }
    }

    BillTotals totals() {
        return totals;
    }

    long count() {
        return count;
    }
}
