package io.paycallback.lease;

import io.paycallback.config.PayCallbackConfig;
import io.paycallback.db.LostRaces;
import io.paycallback.db.MySqlErrors;
import io.paycallback.db.UnknownValueException;
import io.paycallback.lease.Lease;
import io.paycallback.lease.LeaseLostException;
import io.paycallback.lease.Leased;
import io.paycallback.lease.LeasedTable;
import io.paycallback.lease.Leases;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * One try of a batch of leased rows of one table: the table's {@link LeaseHandler} does the business, and for every
 * row that failed this class applies the backoff: reschedule, or after the last delay a dead letter with the
 * handler's alert. A lost lock contest, or a race lost at COMMIT on a multi-primary cluster (Galera's 1213, Group
 * Replication's 3101), is given back without counting as a try; so is a try that met a stored value of another release
 * ({@link UnknownValueException}), for a lease's time. Blocks the calling thread, which is always a worker thread, never
 * the event loop.
 */
@ApplicationScoped
public class LeaseProcessor {

    private static final Logger LOG = Logger.getLogger(LeaseProcessor.class);

    /** A lock contest is tried again soon, by whichever instance leases the row first. */
    private static final Duration AFTER_LOCK_CONTEST = Duration.ofSeconds(1);

    private final Pool pool;
    private final Leases leases;
    private final LeasedTables tables;
    private final ProcessingMetrics metrics;
    private final LostRaces lostRaces;
    private final RetryPolicy policy;
    private final Duration leaseTime;
    private final int transactionSize;

    public LeaseProcessor(Pool pool, Leases leases, LeasedTables tables, ProcessingMetrics metrics,
                          LostRaces lostRaces, PayCallbackConfig config) {
        this.pool = pool;
        this.leases = leases;
        this.tables = tables;
        this.metrics = metrics;
        this.lostRaces = lostRaces;
        this.policy = new RetryPolicy(config.retry().backoff());
        this.leaseTime = config.retry().lease();
        this.transactionSize = Math.max(1, config.retry().transactionSize());
    }

    public Duration leaseTime() {
        return leaseTime;
    }

    /** How many rows of the table one try takes at most. */
    public int batchSize(LeasedTable table) {
        return tables.handler(table).batches() ? transactionSize : 1;
    }

    /** @return the rows the tries wrote already leased, to process now that they are committed */
    public List<Leased> process(Lease lease) {
        return process(List.of(lease));
    }

    /**
     * Tries rows of one table together, at most {@link #batchSize} of them.
     *
     * @return the rows the tries wrote already leased, to process now that they are committed
     */
    public List<Leased> process(List<? extends Leased> batch) {
        LeaseHandler handler = tables.handler(batch.get(0).lease().table());
        Attempted attempted;
        try {
            attempted = handler.attempt(List.copyOf(batch));
        } catch (RuntimeException failure) {
            List<Tried> failed = new ArrayList<>(batch.size());
            batch.forEach(row -> failed.add(new Tried.Failed(row.lease(), failure)));
            attempted = new Attempted(failed, AfterCommit.NOTHING);
        }
        List<Leased> handOff = new ArrayList<>(attempted.next().run());
        for (Tried tried : attempted.rows()) {
            Lease lease = tried.lease();
            if (tried instanceof Tried.Done done) {
                metrics.record(lease.table(), done.result());
            } else if (tried instanceof Tried.Dead dead) {
                metrics.record(lease.table(), ProcessingMetrics.DEAD_LETTER);
                LOG.errorf("Dead letter %s #%d: %s", lease.table().table(), lease.id(), dead.reason());
            } else if (tried instanceof Tried.Lost) {
                metrics.record(lease.table(), ProcessingMetrics.LEASE_LOST);
                LOG.debugf("Lease on %s #%d lost", lease.table().table(), lease.id());
            } else if (tried instanceof Tried.Failed failed) {
                handOff.addAll(fail(handler, lease, failed.failure()));
            }
        }
        return handOff;
    }

    /** Recording the outcome is a transaction like any other: one that loses a race to another is run again. */
    private List<Leased> fail(LeaseHandler handler, Lease lease, RuntimeException failure) {
        String error = describe(failure);
        try {
            if (causedBy(failure, MySqlErrors::isLockContest)) {
                if (causedBy(failure, MySqlErrors::isLostRace)) {
                    lostRaces.record(LostRaces.At.TRANSACTION);
                }
                lostRaces.retried(leases.release(pool, lease, AFTER_LOCK_CONTEST, error), LostRaces.At.TRANSACTION)
                        .await().atMost(leaseTime);
                metrics.record(lease.table(), ProcessingMetrics.RETRIED);
                LOG.infof("%s #%d lost a lock contest, tried again in %s: %s", lease.table().table(), lease.id(),
                        AFTER_LOCK_CONTEST, error);
                return List.of();
            }
            Optional<UnknownValueException> unknown = cause(failure, UnknownValueException.class);
            if (unknown.isPresent()) {
                // Another release's value: wait for an instance that knows it, without spending a try on it here.
                leases.release(pool, lease, leaseTime, error).await().atMost(leaseTime);
                metrics.record(lease.table(), ProcessingMetrics.UNKNOWN_VALUE);
                LOG.warnf("%s #%d waits for a release that knows %s '%s'; given back for %s", lease.table().table(),
                        lease.id(), unknown.get().column(), unknown.get().value(), leaseTime);
                return List.of();
            }
            Optional<Duration> delay = policy.delayAfter(lease.failures());
            if (delay.isPresent()) {
                lostRaces.retried(pool.withTransaction(tx -> handler.recordFailure(tx, lease, failure)
                        .chain(() -> leases.reschedule(tx, lease, delay.get(), error))), LostRaces.At.TRANSACTION)
                        .await().atMost(leaseTime);
                metrics.record(lease.table(), ProcessingMetrics.RETRIED);
                LOG.warnf("%s #%d failed (try %d), next in %s: %s", lease.table().table(), lease.id(),
                        lease.failures() + 1, delay.get(), error);
                return List.of();
            }
            AfterCommit alert = lostRaces.retried(pool.withTransaction(tx -> handler.recordFailure(tx, lease, failure)
                    .chain(() -> leases.bury(tx, lease, error))
                    .chain(() -> handler.giveUp(tx, lease, error))), LostRaces.At.TRANSACTION).await().atMost(leaseTime);
            metrics.record(lease.table(), ProcessingMetrics.DEAD);
            LOG.errorf("Dead letter %s #%d after %d tries: %s", lease.table().table(), lease.id(),
                    lease.failures() + 1, error);
            return alert.run();
        } catch (LeaseLostException lost) {
            metrics.record(lease.table(), ProcessingMetrics.LEASE_LOST);
            recordAlone(handler, lease, failure);
            return List.of();
        } catch (RuntimeException again) {
            // The row keeps its lease until it expires; the next scan after that tries it again.
            LOG.errorf("Could not record the failure of %s #%d: %s", lease.table().table(), lease.id(), describe(again));
            return List.of();
        }
    }

    private void recordAlone(LeaseHandler handler, Lease lease, RuntimeException failure) {
        try {
            handler.recordFailure(pool, lease, failure).await().atMost(leaseTime);
        } catch (RuntimeException e) {
            LOG.warnf("Could not record the failed try of %s #%d: %s", lease.table().table(), lease.id(), describe(e));
        }
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
