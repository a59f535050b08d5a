package io.paycallback.lease;

import io.paycallback.db.LostRaces;
import io.paycallback.db.MySqlErrors;
import io.paycallback.db.UnknownValueException;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * One try of a batch of leased rows of one table: the table's {@link LeaseHandler} does the business, and for every
 * row that failed this class applies the handler's backoff (its own, or the shared one): reschedule, or after the last
 * delay a dead letter with the handler's alert. A lost lock contest, or a race lost at COMMIT on a multi-primary
 * cluster (Galera's 1213, Group Replication's 3101), is given back without counting as a try; so is a try that met a
 * stored value of another release ({@link UnknownValueException}), for a lease's time. The bookkeeping of a part of a
 * batch never blocks, so a handler whose rows wait on an HTTP answer settles each part from wherever the answer
 * arrives; {@link #process} blocks the calling thread, which is always a worker thread, never the event loop.
 */
@ApplicationScoped
public class LeaseProcessor {

    private static final Logger LOG = Logger.getLogger(LeaseProcessor.class);

    /** A lock contest is tried again soon, by whichever instance leases the row first. */
    private static final Duration AFTER_LOCK_CONTEST = Duration.ofSeconds(1);

    private final Pool pool;
    private final LeaseStatements leases;
    private final LeasedTableRegistry tables;
    private final ProcessingMetrics metrics;
    private final LostRaces lostRaces;
    private final RetryPolicy policy;
    private final Duration leaseTime;
    private final int transactionSize;

    public LeaseProcessor(Pool pool, LeaseStatements leases, LeasedTableRegistry tables, ProcessingMetrics metrics,
                          LostRaces lostRaces, LeaseConfig config) {
        this.pool = pool;
        this.leases = leases;
        this.tables = tables;
        this.metrics = metrics;
        this.lostRaces = lostRaces;
        this.policy = new RetryPolicy(config.backoff());
        this.leaseTime = config.lease();
        this.transactionSize = Math.max(1, config.transactionSize());
    }

    public Duration leaseTime() {
        return leaseTime;
    }

    /** How many rows of the table one try takes at most. */
    public int batchSize(LeasedTable table) {
        return tables.handler(table).batches() ? transactionSize : 1;
    }

    /** @return the rows the tries wrote already leased, to process now that they are committed */
    public List<LeasedRow> process(RowLease lease) {
        return process(List.of(lease));
    }

    /**
     * Tries rows of one table together, at most {@link #batchSize} of them, and returns once every row is settled.
     *
     * @return the rows the tries wrote already leased, to process now that they are committed
     */
    public List<LeasedRow> process(List<? extends LeasedRow> batch) {
        List<LeasedRow> handOff = Collections.synchronizedList(new ArrayList<>());
        start(batch, handOff::addAll).toCompletableFuture().join();
        return List.copyOf(handOff);
    }

    /**
     * Tries rows of one table together, at most {@link #batchSize} of them: returns once the tries are under way (at
     * once for a handler that waits outside, see {@link LeaseHandler#start}), and settles each part of the batch as it
     * completes.
     *
     * @param handOver gets the rows each part's transactions wrote already leased, once they are committed
     * @return completes when every row of the batch is settled; never fails
     */
    public CompletionStage<Void> start(List<? extends LeasedRow> batch, Consumer<List<LeasedRow>> handOver) {
        LeaseHandler handler = tables.handler(batch.get(0).lease().table());
        CompletableFuture<Void> settled = new CompletableFuture<>();
        AtomicInteger open = new AtomicInteger(batch.size());
        Consumer<Attempted> settle = part -> settle(handler, part).subscribe().with(rows -> {
            handOver.accept(rows);
            if (open.addAndGet(-part.rows().size()) <= 0) {
                settled.complete(null);
            }
        });
        try {
            handler.start(List.copyOf(batch), settle);
        } catch (RuntimeException failure) {
            List<Tried> failed = new ArrayList<>(batch.size());
            batch.forEach(row -> failed.add(new Tried.Failed(row.lease(), failure)));
            settle.accept(new Attempted(failed, AfterCommit.NOTHING));
        }
        return settled;
    }

    /**
     * Records what came of each row of a part of a batch; never blocks, never fails.
     *
     * @return the rows the part's transactions wrote already leased, to process now that they are committed
     */
    private Uni<List<LeasedRow>> settle(LeaseHandler handler, Attempted part) {
        return Uni.createFrom().deferred(() -> settleRows(handler, part)).onFailure().recoverWithItem(failure -> {
            LOG.errorf("Could not settle %d rows: %s", part.rows().size(), describe(failure));
            return List.of();
        });
    }

    private Uni<List<LeasedRow>> settleRows(LeaseHandler handler, Attempted part) {
        List<LeasedRow> handOff = new ArrayList<>(part.next().run());
        Uni<Void> failures = Uni.createFrom().voidItem();
        for (Tried tried : part.rows()) {
            RowLease lease = tried.lease();
            if (tried instanceof Tried.Done done) {
                metrics.record(lease.table(), done.result());
            } else if (tried instanceof Tried.Deferred deferred) {
                metrics.record(lease.table(), deferred.result());
            } else if (tried instanceof Tried.Dead dead) {
                metrics.record(lease.table(), ProcessingMetrics.DEAD_LETTER);
                LOG.errorf("Dead letter %s #%d: %s", lease.table().table(), lease.id(), dead.reason());
            } else if (tried instanceof Tried.Lost) {
                metrics.record(lease.table(), ProcessingMetrics.LEASE_LOST);
                LOG.debugf("Lease on %s #%d lost", lease.table().table(), lease.id());
            } else if (tried instanceof Tried.Failed failed) {
                // One after the other, as each row's outcome is a transaction of its own.
                failures = failures.chain(() -> fail(handler, lease, failed.failure(), failed.notBefore())
                        .invoke(handOff::addAll).replaceWithVoid());
            }
        }
        return failures.map(ignored -> handOff);
    }

    /**
     * Recording the outcome is a transaction like any other: one that loses a race to another is run again. Never
     * fails: a row whose outcome could not be recorded keeps its lease until it expires, and the next scan after that
     * tries it again.
     */
    private Uni<List<LeasedRow>> fail(LeaseHandler handler, RowLease lease, RuntimeException failure, Duration notBefore) {
        String error = describe(failure);
        Optional<UnknownValueException> unknown = cause(failure, UnknownValueException.class);
        Uni<List<LeasedRow>> outcome;
        if (causedBy(failure, MySqlErrors::isLockContest)) {
            if (causedBy(failure, MySqlErrors::isLostRace)) {
                lostRaces.record(LostRaces.At.TRANSACTION);
            }
            outcome = lostRaces.retried(leases.release(pool, lease, AFTER_LOCK_CONTEST, error), LostRaces.At.TRANSACTION)
                    .map(released -> {
                        metrics.record(lease.table(), ProcessingMetrics.RETRIED);
                        LOG.infof("%s #%d lost a lock contest, tried again in %s: %s", lease.table().table(), lease.id(),
                                AFTER_LOCK_CONTEST, error);
                        return List.of();
                    });
        } else if (unknown.isPresent()) {
            // Another release's value: wait for an instance that knows it, without spending a try on it here.
            outcome = leases.release(pool, lease, leaseTime, error).map(released -> {
                metrics.record(lease.table(), ProcessingMetrics.UNKNOWN_VALUE);
                LOG.warnf("%s #%d waits for a release that knows %s '%s'; given back for %s", lease.table().table(),
                        lease.id(), unknown.get().column(), unknown.get().value(), leaseTime);
                return List.of();
            });
        } else {
            Optional<Duration> backoff = handler.retryPolicy().orElse(policy).delayAfter(lease.failures());
            if (backoff.isPresent()) {
                Duration delay = notBefore.compareTo(backoff.get()) > 0 ? notBefore : backoff.get();
                outcome = lostRaces.retried(pool.withTransaction(tx -> handler.recordFailure(tx, lease, failure)
                        .chain(() -> leases.reschedule(tx, lease, delay, error))), LostRaces.At.TRANSACTION)
                        .map(rescheduled -> {
                            metrics.record(lease.table(), ProcessingMetrics.RETRIED);
                            LOG.warnf("%s #%d failed (try %d), next in %s: %s", lease.table().table(), lease.id(),
                                    lease.failures() + 1, delay, error);
                            return List.of();
                        });
            } else {
                outcome = lostRaces.retried(pool.withTransaction(tx -> handler.recordFailure(tx, lease, failure)
                        .chain(() -> leases.bury(tx, lease, error))
                        .chain(() -> handler.giveUp(tx, lease, error))), LostRaces.At.TRANSACTION)
                        .map(alert -> {
                            metrics.record(lease.table(), ProcessingMetrics.DEAD);
                            LOG.errorf("Dead letter %s #%d after %d tries: %s", lease.table().table(), lease.id(),
                                    lease.failures() + 1, error);
                            return alert.run();
                        });
            }
        }
        return outcome.ifNoItem().after(leaseTime).fail()
                .onFailure(LeaseLostException.class).recoverWithUni(() -> {
                    metrics.record(lease.table(), ProcessingMetrics.LEASE_LOST);
                    return recordAlone(handler, lease, failure).replaceWith(List.<LeasedRow>of());
                })
                .onFailure().recoverWithItem(again -> {
                    LOG.errorf("Could not record the failure of %s #%d: %s", lease.table().table(), lease.id(),
                            describe(again));
                    return List.of();
                });
    }

    private Uni<Void> recordAlone(LeaseHandler handler, RowLease lease, RuntimeException failure) {
        return handler.recordFailure(pool, lease, failure).ifNoItem().after(leaseTime).fail()
                .onFailure().recoverWithItem(e -> {
                    LOG.warnf("Could not record the failed try of %s #%d: %s", lease.table().table(), lease.id(),
                            describe(e));
                    return null;
                });
    }

    private static <T extends Throwable> Optional<T> cause(Throwable failure, Class<T> type) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (type.isInstance(cause)) {
                return Optional.of(type.cast(cause));
            }
        }
        return Optional.empty();
    }

    private static boolean causedBy(Throwable failure, Predicate<Throwable> error) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (error.test(cause)) {
                return true;
            }
        }
        return false;
    }

    private static String describe(Throwable failure) {
        String message = failure.getMessage();
        return failure.getClass().getSimpleName() + (message == null ? "" : ": " + message);
    }
}
