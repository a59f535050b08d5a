package io.paycallback.submission;

import io.paycallback.channel.ChannelId;
import io.paycallback.channel.Notice;
import io.paycallback.config.PayCallbackConfig;
import io.paycallback.ledger.CallbackLedger;
import io.paycallback.ledger.Lease;
import io.paycallback.ledger.LeasedTable;
import io.paycallback.ledger.Leased;
import io.paycallback.ledger.Leases;
import io.paycallback.ledger.Origin;
import io.paycallback.ledger.Pickup;
import io.paycallback.ledger.StoredCallbacks;
import io.paycallback.ledger.StoredPayment;
import io.paycallback.order.RefundStatus;
import io.paycallback.order.Refunds;
import io.paycallback.outbox.DownstreamEvent;
import io.paycallback.outbox.Emission;
import io.paycallback.outbox.Emitted;
import io.paycallback.outbox.EventType;
import io.paycallback.outbox.Outbox;
import io.paycallback.provider.ProviderClient;
import io.paycallback.provider.ProviderClients;
import io.paycallback.provider.ProviderException;
import io.paycallback.provider.RefundAnswer;
import io.paycallback.provider.RefundOrder;
import io.paycallback.retry.AfterCommit;
import io.paycallback.retry.Attempted;
import io.paycallback.retry.LeaseHandler;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Submits a refund the state machine decided on (paid twice, paid after close) to the provider of the payment being
 * refunded, idempotent by our refund number, so a retry after a lost answer never refunds twice. The provider's
 * acceptance marks the refund SUBMITTED and emits {@code refund.submitted}; a final state already in the answer is
 * stored like a refund notice, under the notice's key, so it and the provider's own notice count once between them;
 * without one, the refund is asked about on {@code paycallback.reconcile.schedule} until it is final.
 * A rejection is a dead letter with the provider's error code; any other failure is retried on the backoff.
 */
@ApplicationScoped
public class RefundSubmitter implements LeaseHandler {

    static final String FIND = "SELECT merchant_id, channel, refund_no FROM refund_submissions WHERE id = ?";
    private static final String AWAITING = "accepted, awaiting the refund's final state";

    private final Pool pool;
    private final Leases leases;
    private final Refunds refunds;
    private final StoredCallbacks callbacks;
    private final CallbackLedger ledger;
    private final Outbox outbox;
    private final ProviderClients providers;
    private final Duration timeout;
    private final List<Duration> schedule;

    public RefundSubmitter(Pool pool, Leases leases, Refunds refunds, StoredCallbacks callbacks, CallbackLedger ledger,
                           Outbox outbox, ProviderClients providers, PayCallbackConfig config) {
        this.pool = pool;
        this.leases = leases;
        this.refunds = refunds;
        this.callbacks = callbacks;
        this.ledger = ledger;
        this.outbox = outbox;
        this.providers = providers;
        this.timeout = config.providers().timeout().multipliedBy(2);
        this.schedule = config.reconcile().schedule();
    }

    /** The refund a submission row is about. */
    record Submission(long id, String merchantId, String channel, String refundNo) {
    }

    /** What a submission row's try came to, when it was not a dead letter. */
    enum Result {
        /** The refund was settled already, or is gone: nothing to submit. */
        DUPLICATE,
        /** The provider accepted the refund. */
        REFUND_SUBMITTED,
        /** The provider's answer to our query was final; it is stored like the provider's notice. */
        REFUND_SETTLED,
        /** Accepted, not final yet: asked again on the schedule. */
        QUERIED;

        String tag() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    @Override
    public LeasedTable table() {
        return LeasedTable.REFUND_SUBMISSIONS;
    }

    @Override
    public boolean batches() {
        return false;
    }

    @Override
    public List<String> results() {
        return Arrays.stream(Result.values()).map(Result::tag).toList();
    }

    @Override
    public Attempted attempt(List<Leased> batch) {
        return Attempted.eachAlone(batch, this::attempt);
    }

    Attempted attempt(Lease lease) {
        Submission submission = find(pool, lease.id()).await().atMost(timeout);
        Optional<Refunds.Request> request = refunds.findRequest(pool, submission.merchantId(), submission.channel(),
                submission.refundNo()).await().atMost(timeout);
        if (request.isEmpty() || request.get().status().settled()) {
            leases.finish(pool, lease).await().atMost(timeout);
            return Attempted.done(lease, Result.DUPLICATE.tag());
        }
        Refunds.Request refund = request.get();
        Optional<ProviderClient> client = ChannelId.fromPath(submission.channel())
                .flatMap(channel -> providers.find(channel, submission.merchantId()));
        if (client.isEmpty()) {
            return deadLetter(lease, submission, refund, "no " + submission.channel()
                    + " API keys for this merchant: refund it by hand");
        }
        StoredPayment payment = callbacks.processedPayment(pool, submission.merchantId(), submission.channel(),
                refund.channelTradeNo()).await().atMost(timeout);
        RefundOrder order = new RefundOrder(submission.merchantId(), submission.refundNo(), refund.outTradeNo(),
                refund.channelTradeNo(), refund.amount(), payment == null ? refund.amount() : payment.amount(),
                refund.currency(), refund.reason());
        return refund.status() == RefundStatus.REQUESTED
                ? submit(lease, submission, refund, client.get(), order)
                : awaitFinalState(lease, submission, refund, client.get(), order);
    }

    private Attempted submit(Lease lease, Submission submission, Refunds.Request refund, ProviderClient client,
                              RefundOrder order) {
        RefundAnswer answer;
        try {
            answer = client.submitRefund(order).await().atMost(timeout);
        } catch (ProviderException failed) {
            if (failed.rejected()) {
                return deadLetter(lease, submission, refund, "refund rejected: " + failed.getMessage());
            }
            throw failed;
        }
        List<Emission> emitted = pool.withTransaction(tx -> refunds.markSubmitted(tx, submission.merchantId(),
                        submission.channel(), submission.refundNo(), answer.channelRefundId())
                .chain(() -> outbox.emit(tx, event(submission, refund, EventType.REFUND_SUBMITTED, null)))
                .call(() -> answer.settled().isPresent()
                        ? leases.finish(tx, lease)
                        : leases.reschedule(tx, lease, delay(lease), AWAITING))).await().atMost(timeout);
        answer.settled().ifPresent(settled -> store(settled, answer.body()));
        return Attempted.done(lease, Result.REFUND_SUBMITTED.tag(), new Emitted(emitted));
    }

    /** Accepted but not final: ask on the query schedule until the answer, or the provider's notice, settles it. */
    private Attempted awaitFinalState(Lease lease, Submission submission, Refunds.Request refund, ProviderClient client,
                                       RefundOrder order) {
        Optional<Notice.Refund> settled = client.queryRefund(order, refund.channelRefundId()).await().atMost(timeout);
        if (settled.isPresent()) {
            store(settled.get(), settled.get().toString().getBytes(StandardCharsets.UTF_8));
            leases.finish(pool, lease).await().atMost(timeout);
            return Attempted.done(lease, Result.REFUND_SETTLED.tag());
        }
        if (lease.failures() >= schedule.size()) {
            return deadLetter(lease, submission, refund, "refund " + submission.refundNo() + " still not final after "
                    + (lease.failures() + 1) + " queries");
        }
        leases.reschedule(pool, lease, delay(lease), AWAITING).await().atMost(timeout);
        return Attempted.done(lease, Result.QUERIED.tag());
    }

    private Duration delay(Lease lease) {
        return schedule.get(Math.min(lease.failures(), schedule.size() - 1));
    }

    /** Stored under the refund notice's key: whichever of it and the provider's own notice comes first counts. */
    private void store(Notice.Refund settled, byte[] body) {
        ledger.reserve(settled, body, Pickup.SCANNER, Origin.SUBMISSION).await().atMost(timeout);
    }

    private Attempted deadLetter(Lease lease, Submission submission, Refunds.Request refund, String reason) {
        List<Emission> alert = pool.withTransaction(tx -> leases.bury(tx, lease, reason)
                .chain(() -> outbox.emit(tx, event(submission, refund, EventType.ALERT, reason)))).await().atMost(timeout);
        return Attempted.dead(lease, reason, new Emitted(alert));
    }

    /** The alert for a submission given up on after all its tries. */
    @Override
    public Uni<AfterCommit> giveUp(SqlClient transaction, Lease lease, String reason) {
        return find(transaction, lease.id()).flatMap(submission -> refunds.findRequest(transaction,
                        submission.merchantId(), submission.channel(), submission.refundNo())
                .flatMap(refund -> outbox.emit(transaction, DownstreamEvent.alert(source(submission),
                        submission.merchantId(), refund.map(Refunds.Request::outTradeNo).orElse(null),
                        submission.channel(), refund.map(Refunds.Request::channelTradeNo).orElse(null),
                        refund.map(Refunds.Request::amount).orElse(null), refund.map(Refunds.Request::currency).orElse(null),
                        "dead letter: refund " + submission.refundNo() + " not submitted: " + reason))))
                .map(Emitted::new);
    }

    private static Uni<Submission> find(SqlClient client, long id) {
        return client.preparedQuery(FIND).execute(Tuple.of(id)).map(rows -> {
            var iterator = rows.iterator();
            if (!iterator.hasNext()) {
                throw new IllegalStateException("refund submission #" + id + " is gone");
            }
            Row row = iterator.next();
            return new Submission(id, row.getString("merchant_id"), row.getString("channel"), row.getString("refund_no"));
        });
    }

    private static String source(Submission submission) {
        return "submission:" + submission.id();
    }

    private static DownstreamEvent event(Submission submission, Refunds.Request refund, EventType type, String reason) {
        return new DownstreamEvent(source(submission), type, submission.merchantId(), refund.outTradeNo(),
                submission.channel(), refund.channelTradeNo(), submission.refundNo(), refund.amount(), refund.amount(),
                null, refund.currency(), reason);
    }
}
