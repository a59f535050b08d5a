package io.paycallback.lease;

import io.paycallback.db.MySqlErrors;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.Startup;
import io.quarkus.scheduler.Scheduled;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.jboss.logging.Logger;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The safety net behind the immediate hand-off: every few seconds, lease what is due in each leased table, in
 * batches, and keep going while batches come back full. Any number of instances may scan at once; the lease decides
 * who works on a row. Catches what the hand-off dropped, what failed and is due again, and what a crashed instance
 * left leased. Also scans out of turn once the workers have caught up with a burst that ingest wrote due.
 */
@Startup
@ApplicationScoped
public class Scanner {

    private static final Logger LOG = Logger.getLogger(Scanner.class);

    private final LeaseStatements leases;
    private final LeasedTableRegistry tables;
    private final Worker worker;
    private final int batchSize;
    private final Duration leaseTime;
    /** One thread, since a scan blocks; requests while one is queued add nothing. */
    private final ExecutorService outOfTurn = Executors.newSingleThreadExecutor(runnable -> {
        Thread thread = new Thread(runnable, "paycallback-catch-up-scan");
        thread.setDaemon(true);
        return thread;
    });
    private final AtomicBoolean outOfTurnQueued = new AtomicBoolean();
    /** Two scans at once would each lease a lane's whole room. */
    private final ReentrantLock scanning = new ReentrantLock();

    public Scanner(LeaseStatements leases, LeasedTableRegistry tables, Worker worker, LeaseConfig config) {
        this.leases = leases;
        this.tables = tables;
        this.worker = worker;
        this.batchSize = config.batchSize();
        this.leaseTime = config.lease();
        worker.whenCaughtUp(this::scanOutOfTurn);
    }

    private void scanOutOfTurn() {
        if (!outOfTurnQueued.compareAndSet(false, true)) {
            return;
        }
        try {
            outOfTurn.execute(() -> {
                outOfTurnQueued.set(false);
                scanning.lock();
                try {
                    scanTables();
                } finally {
                    scanning.unlock();
                }
            });
        } catch (RejectedExecutionException shutDown) {
            outOfTurnQueued.set(false);
        }
    }

    void onShutdown(@Observes ShutdownEvent event) {
        outOfTurn.shutdownNow();
    }

    @Scheduled(every = "${paycallback.retry.scan-interval}", delayed = "${paycallback.retry.scan-delay}",
            concurrentExecution = Scheduled.ConcurrentExecution.SKIP, skipExecutionIf = Scheduled.ApplicationNotRunning.class)
    void scan() {
        // A scan under way out of turn does the same.
        if (!scanning.tryLock()) {
            return;
        }
        try {
            scanTables();
        } finally {
            scanning.unlock();
        }
    }

    private void scanTables() {
        for (LeasedTable table : tables.all()) {
            try {
                drain(table, false);
            } catch (RuntimeException e) {
                LOG.warnf("Scan of %s failed, next scan retries: %s", table.table(), e.toString());
            }
        }
    }

    /** Leases what is due in the table and processes it; returns once every row it leased is settled. */
    public int drain(LeasedTable table) {
        return drain(table, true);
    }

    /**
     * @param settled whether to wait for the outcome of a laned table's rows (the schedule does not: a slow lane would
     *                hold back every table's next scan)
     * @return how many rows were leased
     */
    int drain(LeasedTable table, boolean settled) {
        LeaseHandler handler = tables.handler(table);
        Optional<Lanes> lanes = handler.lanes();
        if (lanes.isPresent()) {
            return drainLanes(table, handler, lanes.get(), settled);
        }
        int total = 0;
        List<RowLease> batch;
        do {
            if (worker.isShutdown()) {
                return total;
            }
            batch = leases.leaseDue(table, batchSize, leaseTime).await().atMost(leaseTime);
            worker.processAll(batch);
            total += batch.size();
        } while (batch.size() == batchSize);
        return total;
    }

    /**
     * Each lane's due rows apart, at most its room (a lane that drains leases more itself); then, if no lane is backed
     * up, the rows of none of them, which the due range then holds few of besides.
     */
    private int drainLanes(LeasedTable table, LeaseHandler handler, Lanes lanes, boolean settled) {
        int total = 0;
        boolean backedUp = false;
        List<CompletableFuture<Void>> running = new ArrayList<>();
        for (Map.Entry<String, Integer> lane : lanes.room().entrySet()) {
            int limit = Math.min(batchSize, lane.getValue());
            if (limit <= 0 || worker.isShutdown()) {
                backedUp = true;
                continue;
            }
            List<RowLease> batch;
            try {
                batch = leases.leaseDue(table, limit, leaseTime, lanes, lane.getKey()).await().atMost(leaseTime);
            } catch (RuntimeException failure) {
                if (!MySqlErrors.isLockContest(failure)) {
                    throw failure;
                }
                handler.laneContested(lane.getKey());
                backedUp = true;
                continue;
            }
            running.add(worker.startAll(batch));
            total += batch.size();
            backedUp |= batch.size() == limit;
        }
        if (!backedUp) {
            List<RowLease> batch;
            do {
                batch = leases.leaseDueOutside(table, batchSize, leaseTime, lanes).await().atMost(leaseTime);
                running.add(worker.startAll(batch));
                total += batch.size();
            } while (batch.size() == batchSize && !worker.isShutdown());
        }
        if (settled) {
            CompletableFuture.allOf(running.toArray(CompletableFuture[]::new)).join();
        }
        return total;
    }
}
