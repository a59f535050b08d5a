package io.paycallback.lease;

import io.quarkus.runtime.ShutdownEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.jboss.logging.Logger;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The worker threads: a fixed number of them, fed by two paths. A freshly reserved callback and the outbox rows a
 * transition wrote arrive already leased by their writer and wait, per table, for a worker, which takes whatever is
 * waiting up to a batch, and goes on while rows wait: a micro-batch that adds no delay when the service is idle (a lone
 * row is a batch of one) and grows by itself under load, since only a few workers per table take fresh rows. When too
 * many wait, ingest writes new rows due instead of leased, and the scanner takes them as soon as the workers have caught
 * up (see {@link #whenCaughtUp}). The scanner hands over whole leased batches and waits for them.
 */
@ApplicationScoped
public class Worker {

    private static final Logger LOG = Logger.getLogger(Worker.class);

    private final LeaseProcessor processor;
    private final LeaseStatements leases;
    private final ThreadPoolExecutor executor;
    private final Map<LeasedTable, Queue<LeasedRow>> waiting = new ConcurrentHashMap<>();
    private final AtomicInteger waitingCount = new AtomicInteger();
    private final Map<LeasedTable, AtomicInteger> takers = new ConcurrentHashMap<>();
    /** Batches started and not settled yet: a handler that waits outside settles them after the worker is free. */
    private final AtomicInteger unsettled = new AtomicInteger();
    /** Whether ingest was told there is no room since the workers last caught up. */
    private final AtomicBoolean turnedAway = new AtomicBoolean();
    private volatile Runnable caughtUp = () -> { };
    private final int takersPerTable;
    private final int waitingLimit;
    private final Duration shutdownGrace;

    public Worker(LeaseProcessor processor, LeaseStatements leases, LeaseConfig config) {
        this.processor = processor;
        this.leases = leases;
        int threads = config.workers();
        this.waitingLimit = config.handOffQueue();
        AtomicInteger counter = new AtomicInteger();
        this.executor = new ThreadPoolExecutor(threads, threads, 0, TimeUnit.MILLISECONDS,
                new ArrayBlockingQueue<>(waitingLimit),
                runnable -> {
                    Thread thread = new Thread(runnable, "paycallback-worker-" + counter.incrementAndGet());
                    thread.setDaemon(true);
                    return thread;
                });
        // Few takers per table, so that rows arriving while they work wait for the next batch together instead of
        // each starting a transaction of its own: batches then grow with the load. The other workers stay free for
        // the other tables and the scanner.
        this.takersPerTable = Math.max(1, threads / 4);
        this.shutdownGrace = config.shutdownGrace();
    }

    private Queue<LeasedRow> waiting(LeasedTable table) {
        return waiting.computeIfAbsent(table, any -> new ConcurrentLinkedQueue<>());
    }

    private AtomicInteger takers(LeasedTable table) {
        return takers.computeIfAbsent(table, any -> new AtomicInteger());
    }

    /**
     * Whether a hand-off now would find a place; non-blocking. A caller told no writes its row due, for the scanner.
     */
    public boolean hasRoom() {
        boolean room = waitingCount.get() < waitingLimit && executor.getQueue().remainingCapacity() > 0;
        if (!room) {
            turnedAway.set(true);
        }
        return room;
    }

    /**
     * Runs the listener when nothing waits for a worker any more after {@link #hasRoom} said no: the rows written due
     * meanwhile are then taken at once, not at the next scan, which would add up to a scan interval to the last
     * callbacks of every burst. On the worker thread that found the queue empty: the listener must not block.
     */
    void whenCaughtUp(Runnable listener) {
        this.caughtUp = listener;
    }

    /**
     * Processes a row the caller already holds the lease of. Non-blocking: safe on the event loop. Never refused: a
     * refused row would sit out its whole lease. The bound is upstream, where ingest asks {@link #hasRoom} before it
     * writes a row leased; the outbox rows a transition writes are bounded by the transitions in flight.
     */
    public void process(LeasedRow row) {
        LeasedTable table = row.lease().table();
        waitingCount.incrementAndGet();
        waiting(table).add(row);
        startTaking(table);
    }

    /** Sets one more worker taking rows of the table, unless {@link #takersPerTable} already are. */
    private void startTaking(LeasedTable table) {
        AtomicInteger active = takers(table);
        int now;
        do {
            now = active.get();
            if (now >= takersPerTable) {
                return;
            }
        } while (!active.compareAndSet(now, now + 1));
        try {
            executor.execute(() -> takeWaiting(table));
        } catch (RejectedExecutionException full) {
            active.decrementAndGet();
            LOG.debugf("Worker queue full; rows of %s wait for the next batch or the scanner", table.table());
        }
    }

    /** Leases a row and processes it. Non-blocking: safe on the event loop. */
    public void handOff(LeasedTable table, long id) {
        try {
            executor.execute(() -> leaseAndProcess(table, id));
        } catch (RejectedExecutionException full) {
            LOG.debugf("Worker queue full; %s #%d waits for the scanner", table.table(), id);
        }
    }

    /** Processes leased rows of one table with the worker threads, in batches, and returns when all are settled. */
    public void processAll(List<RowLease> leased) {
        startAll(leased).join();
    }

    /**
     * Processes leased rows of one table with the worker threads, in batches, without waiting. A worker is busy only
     * while a batch needs it: one whose rows wait on HTTP answers frees it at once.
     *
     * @return completes when every row is settled
     */
    public CompletableFuture<Void> startAll(List<RowLease> leased) {
        if (leased.isEmpty()) {
            return CompletableFuture.completedFuture(null);
        }
        int size = processor.batchSize(leased.get(0).table());
        List<CompletableFuture<Void>> running = new ArrayList<>();
        for (int from = 0; from < leased.size(); from += size) {
            List<RowLease> batch = leased.subList(from, Math.min(leased.size(), from + size));
            CompletableFuture<Void> settled = new CompletableFuture<>();
            // Counted as the hand-off's batches are, so that shutdown waits for their tries too.
            unsettled.incrementAndGet();
            settled.whenComplete((done, e) -> unsettled.decrementAndGet());
            Runnable task = () -> {
                try {
                    processor.start(batch, this::handOver).whenComplete((done, e) -> settled.complete(null));
                } catch (RuntimeException e) {
                    settled.completeExceptionally(e);
                }
            };
            try {
                executor.execute(task);
            } catch (RejectedExecutionException full) {
                task.run();
            }
            running.add(settled);
        }
        return CompletableFuture.allOf(running.toArray(CompletableFuture[]::new));
    }

    /**
     * Leases up to {@code limit} due rows of one lane and processes them, on a worker thread; non-blocking, safe on the
     * event loop. For a lane that drained and asks for more itself (see {@link LeaseHandler#lanes()}).
     *
     * @return how many rows it leased (0: none was due); failed when the lease did (such as a deadlock lost to another
     *         lease of the same index range) or no worker could take it, so that the lane asks again
     */
    public CompletableFuture<Integer> refill(LeasedTable table, Lanes lanes, String lane, int limit) {
        CompletableFuture<Integer> leased = new CompletableFuture<>();
        try {
            executor.execute(() -> {
                try {
                    List<RowLease> rows = leases.leaseDue(table, limit, processor.leaseTime(), lanes, lane)
                            .await().atMost(processor.leaseTime());
                    startAll(rows);
                    leased.complete(rows.size());
                } catch (RuntimeException e) {
                    LOG.debugf("Refilling %s %s failed: %s", table.table(), lane, e.toString());
                    leased.completeExceptionally(e);
                }
            });
        } catch (RejectedExecutionException full) {
            leased.completeExceptionally(full);
        }
        return leased;
    }

    private void takeWaiting(LeasedTable table) {
        Queue<LeasedRow> queue = waiting(table);
        int size = processor.batchSize(table);
        try {
            List<LeasedRow> batch = new ArrayList<>(size);
            while (!executor.isShutdown()) {
                batch.clear();
                LeasedRow next;
                while (batch.size() < size && (next = queue.poll()) != null) {
                    batch.add(next);
                }
                if (batch.isEmpty()) {
                    if (waitingCount.get() == 0 && turnedAway.compareAndSet(true, false)) {
                        caughtUp.run();
                    }
                    return;
                }
                waitingCount.addAndGet(-batch.size());
                unsettled.incrementAndGet();
                processor.start(List.copyOf(batch), this::handOver).whenComplete((done, e) -> unsettled.decrementAndGet());
            }
        } finally {
            takers(table).decrementAndGet();
            // A row that arrived between the last empty poll and the decrement found every taker busy: take it now.
            if (!queue.isEmpty() && !executor.isShutdown()) {
                startTaking(table);
            }
        }
    }

    private void handOver(List<LeasedRow> written) {
        written.forEach(this::process);
    }

    private void leaseAndProcess(LeasedTable table, long id) {
        try {
            Optional<RowLease> lease = leases.leaseOne(table, id, processor.leaseTime()).await().atMost(processor.leaseTime());
            lease.ifPresent(held -> handOver(processor.process(held)));
        } catch (RuntimeException e) {
            LOG.warnf("Immediate processing of %s #%d failed, the scanner will retry it: %s", table.table(), id, e.toString());
        }
    }

    public boolean isShutdown() {
        return executor.isShutdown();
    }

    /**
     * On the shutdown event rather than at bean destruction: its observers run before Quarkus closes the database pool,
     * so the grace lets rows in flight commit (or record their failure) instead of failing on a closed pool.
     */
    void onShutdown(@Observes ShutdownEvent event) throws InterruptedException {
        stop();
    }

    public void stop() throws InterruptedException {
        long deadline = System.nanoTime() + shutdownGrace.toNanos();
        executor.shutdown();
        if (!executor.awaitTermination(shutdownGrace.toMillis(), TimeUnit.MILLISECONDS)) {
            // Rows still leased are retried by another instance once their lease runs out.
            executor.shutdownNow();
        }
        // Tries under way outside (HTTP answers) end and are recorded within the grace too, before the pool closes.
        while (unsettled.get() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
    }
}
