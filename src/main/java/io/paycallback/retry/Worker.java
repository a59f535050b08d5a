package io.paycallback.retry;

import io.paycallback.config.PayCallbackConfig;
import io.paycallback.ledger.Lease;
import io.paycallback.ledger.LeasedTable;
import io.paycallback.ledger.Leases;
import io.paycallback.outbox.Emission;
import io.paycallback.outbox.OutboxRelay;
import io.quarkus.runtime.ShutdownEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.jboss.logging.Logger;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The worker threads: a fixed number of them, fed by two paths. A freshly reserved callback and the outbox rows a
 * transition wrote arrive already leased by their writer and are handed over at once, without blocking the caller;
 * should the queue be full, the row is in the table and the scanner takes it (at once if it was written due, after
 * its lease otherwise). The scanner hands over whole leased batches and waits for them.
 */
@ApplicationScoped
public class Worker {

    private static final Logger LOG = Logger.getLogger(Worker.class);

    private final LeaseProcessor processor;
    private final Leases leases;
    private final OutboxRelay relay;
    private final ThreadPoolExecutor executor;
    private final Duration shutdownGrace;

    public Worker(LeaseProcessor processor, Leases leases, OutboxRelay relay, PayCallbackConfig config) {
        this.processor = processor;
        this.leases = leases;
        this.relay = relay;
        int threads = config.retry().workers();
        AtomicInteger counter = new AtomicInteger();
        this.executor = new ThreadPoolExecutor(threads, threads, 0, TimeUnit.MILLISECONDS,
                new ArrayBlockingQueue<>(config.retry().handOffQueue()),
                runnable -> {
                    Thread thread = new Thread(runnable, "paycallback-worker-" + counter.incrementAndGet());
                    thread.setDaemon(true);
                    return thread;
                });
        this.shutdownGrace = config.retry().shutdownGrace();
    }

    /** Whether a hand-off now would find a place in the queue; non-blocking. */
    public boolean hasRoom() {
        return executor.getQueue().remainingCapacity() > 0;
    }

    /**
     * Processes a row the caller already holds the lease of. Non-blocking: safe on the event loop. When the queue is
     * full the row waits for its lease to lapse and the scanner.
     */
    public void process(Lease lease) {
        try {
            executor.execute(() -> deliver(processor.process(lease)));
        } catch (RejectedExecutionException full) {
            LOG.debugf("Hand-off queue full; %s #%d waits for its lease to lapse", lease.table().table(), lease.id());
        }
    }

    /** Leases a row and processes it. Non-blocking: safe on the event loop. */
    public void handOff(LeasedTable table, long id) {
        try {
            executor.execute(() -> leaseAndProcess(table, id));
        } catch (RejectedExecutionException full) {
            LOG.debugf("Hand-off queue full; %s #%d waits for the scanner", table.table(), id);
        }
    }

    /** Delivers events a committed try wrote: logged ones now, the others on a worker under the writer's lease. */
    public void deliver(List<Emission> emitted) {
        for (Emission emission : emitted) {
            if (emission instanceof Emission.ToDeliver leased) {
                process(leased.lease());
            } else if (emission instanceof Emission.ToLog logged) {
                relay.log(logged);
            }
        }
    }

    /** Processes leased rows with the worker threads and returns when all are done. */
    public void processAll(List<Lease> leased) {
        List<CompletableFuture<Void>> running = new ArrayList<>(leased.size());
        for (Lease lease : leased) {
            Runnable task = () -> deliver(processor.process(lease));
            try {
                running.add(CompletableFuture.runAsync(task, executor));
            } catch (RejectedExecutionException full) {
                task.run();
            }
        }
        CompletableFuture.allOf(running.toArray(CompletableFuture[]::new)).join();
    }

    private void leaseAndProcess(LeasedTable table, long id) {
        try {
            Optional<Lease> lease = leases.leaseOne(table, id, processor.leaseTime()).await().atMost(processor.leaseTime());
            lease.ifPresent(held -> deliver(processor.process(held)));
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
        executor.shutdown();
        if (!executor.awaitTermination(shutdownGrace.toMillis(), TimeUnit.MILLISECONDS)) {
            // Rows still leased are retried by another instance once their lease runs out.
            executor.shutdownNow();
        }
    }
}
