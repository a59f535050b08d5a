package io.paycallback.retry;

import io.paycallback.config.PayCallbackConfig;
import io.paycallback.ledger.Lease;
import io.paycallback.ledger.LeaseLostException;
import io.paycallback.ledger.Leases;
import io.paycallback.ledger.StoredCallbacks;
import io.paycallback.order.PaymentTransition;
import io.paycallback.order.RefundTransition;
import io.paycallback.order.Transition;
import io.paycallback.outbox.DeliveryAttempt;
import io.paycallback.outbox.DeliveryAttempts;
import io.paycallback.outbox.DeliveryFailedException;
import io.paycallback.outbox.Emission;
import io.paycallback.outbox.OutboxRelay;
import io.paycallback.reconcile.Reconciler;
import io.paycallback.submission.RefundSubmitter;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.SqlClient;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * One try of one leased row, whatever its table: the business step in one transaction that also finishes the row
 * (fenced by the lease), or on failure the backoff: reschedule, or after the last delay a dead letter with its alert.
 * An outbox event's failed HTTP try is recorded in the same transaction as the reschedule or the dead letter.
 * Blocks the calling thread, which is always a worker thread, never the event loop.
 */
@ApplicationScoped
public class LeaseProcessor {

    private static final Logger LOG = Logger.getLogger(LeaseProcessor.class);

    private final Pool pool;
    private final Leases leases;
    private final StoredCallbacks callbacks;
    private final PaymentTransition payments;
    private final RefundTransition refunds;
    private final OutboxRelay relay;
    private final Reconciler reconciler;
    private final RefundSubmitter submitter;
    private final DeliveryAttempts attempts;
    private final ProcessingMetrics metrics;
    private final RetryPolicy policy;
    private final Duration leaseTime;

    public LeaseProcessor(Pool pool, Leases leases, StoredCallbacks callbacks, PaymentTransition payments,
                          RefundTransition refunds, OutboxRelay relay, DeliveryAttempts attempts,
                          Reconciler reconciler, RefundSubmitter submitter, ProcessingMetrics metrics,
                          PayCallbackConfig config) {
        this.pool = pool;
        this.leases = leases;
        this.callbacks = callbacks;
        this.payments = payments;
        this.refunds = refunds;
        this.relay = relay;
        this.reconciler = reconciler;
        this.submitter = submitter;
        this.attempts = attempts;
        this.metrics = metrics;
        this.policy = new RetryPolicy(config.retry().backoff());
        this.leaseTime = config.retry().lease();
    }

    public Duration leaseTime() {
        return leaseTime;
    }

    /**
     * @return the outbox rows the try wrote, ready for delivery now that they are committed
     */
    public List<Emission> process(Lease lease) {
        try {
            Transition transition = attempt(lease).await().atMost(leaseTime);
            metrics.record(lease.table(), transition.result().tag());
            if (transition.result() == Transition.Result.DEAD_LETTER) {
                LOG.errorf("Dead letter %s #%d: %s", lease.table().table(), lease.id(), transition.reason());
            }
            return transition.emitted();
        } catch (LeaseLostException lost) {
            metrics.record(lease.table(), ProcessingMetrics.LEASE_LOST);
            LOG.debugf("%s", lost.getMessage());
            return List.of();
        } catch (RuntimeException failure) {
            return fail(lease, failure);
        }
    }

    private Uni<Transition> attempt(Lease lease) {
        return switch (lease.table()) {
            case PAY_CALLBACK_LOG -> pool.withTransaction(tx -> callbacks.payment(tx, lease.id())
                    .flatMap(payment -> payments.apply(tx, payment))
                    .call(transition -> close(tx, lease, transition)));
            case REFUND_CALLBACK_LOG -> pool.withTransaction(tx -> callbacks.refund(tx, lease.id())
                    .flatMap(refund -> refunds.apply(tx, refund))
                    .call(transition -> close(tx, lease, transition)));
            case OUTBOX -> relay.deliver(lease).map(type -> Transition.of(Transition.Result.DELIVERED, List.of()));
            // These two call providers, which must never happen inside a database transaction: they run their own.
            case ORDER_QUERIES -> Uni.createFrom().item(() -> reconciler.attempt(lease));
            case REFUND_SUBMISSIONS -> Uni.createFrom().item(() -> submitter.attempt(lease));
        };
    }

    private Uni<Void> close(SqlClient transaction, Lease lease, Transition transition) {
        return transition.result() == Transition.Result.DEAD_LETTER
                ? leases.bury(transaction, lease, transition.reason())
                : leases.finish(transaction, lease);
    }

    private List<Emission> fail(Lease lease, RuntimeException failure) {
        String error = describe(failure);
        Optional<Duration> delay = policy.delayAfter(lease.failures());
        Optional<DeliveryAttempt> attempt = failure instanceof DeliveryFailedException delivery
                ? Optional.of(delivery.attempt()) : Optional.empty();
        try {
            if (delay.isPresent()) {
                (attempt.isPresent()
                        ? attempts.withOutcome(attempt.get(), tx -> leases.reschedule(tx, lease, delay.get(), error))
                        : leases.reschedule(pool, lease, delay.get(), error)).await().atMost(leaseTime);
                metrics.record(lease.table(), ProcessingMetrics.RETRIED);
                LOG.warnf("%s #%d failed (try %d), next in %s: %s", lease.table().table(), lease.id(),
                        lease.failures() + 1, delay.get(), error);
                return List.of();
            }
            Function<SqlClient, Uni<List<Emission>>> bury = tx -> leases.bury(tx, lease, error)
                    .chain(() -> giveUp(tx, lease, error));
            List<Emission> alerts = (attempt.isPresent() ? attempts.withOutcome(attempt.get(), bury)
                    : pool.withTransaction(bury::apply)).await().atMost(leaseTime);
            metrics.record(lease.table(), ProcessingMetrics.DEAD);
            LOG.errorf("Dead letter %s #%d after %d tries: %s", lease.table().table(), lease.id(),
                    lease.failures() + 1, error);
            return alerts;
        } catch (LeaseLostException lost) {
            metrics.record(lease.table(), ProcessingMetrics.LEASE_LOST);
            return List.of();
        } catch (RuntimeException again) {
            // The row keeps its lease until it expires; the next scan after that tries it again.
            LOG.errorf("Could not record the failure of %s #%d: %s", lease.table().table(), lease.id(), describe(again));
            return List.of();
        }
    }

    private Uni<List<Emission>> giveUp(SqlClient transaction, Lease lease, String error) {
        return switch (lease.table()) {
            case PAY_CALLBACK_LOG -> callbacks.payment(transaction, lease.id())
                    .flatMap(payment -> payments.giveUp(transaction, payment, error));
            case REFUND_CALLBACK_LOG -> callbacks.refund(transaction, lease.id())
                    .flatMap(refund -> refunds.giveUp(transaction, refund, error));
            case OUTBOX -> relay.giveUp(transaction, lease.id(), error);
            case ORDER_QUERIES -> reconciler.giveUp(transaction, lease, error);
            case REFUND_SUBMISSIONS -> submitter.giveUp(transaction, lease, error);
        };
    }

    private static String describe(Throwable failure) {
        String message = failure.getMessage();
        return failure.getClass().getSimpleName() + (message == null ? "" : ": " + message);
    }
}
