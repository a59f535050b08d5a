package io.paycallback.submission;

import io.paycallback.channel.Notice;
import io.paycallback.inbox.CallbackInbox;
import io.paycallback.inbox.Origin;
import io.paycallback.inbox.StoredCallbacks;
import io.paycallback.inbox.StoredPayment;
import io.paycallback.lease.AfterCommit;
import io.paycallback.lease.RowLease;
import io.paycallback.lease.LeaseStatements;
import io.paycallback.lease.Pickup;
import io.paycallback.order.RefundStatus;
import io.paycallback.order.Refunds;
import io.paycallback.outbox.DownstreamEvent;
import io.paycallback.outbox.Emitted;
import io.paycallback.outbox.Outbox;
import io.paycallback.outbox.Subject;
import io.paycallback.provider.ProviderClient;
import io.paycallback.provider.ProviderClients;
import io.paycallback.provider.ProviderConfig;
import io.paycallback.provider.ProviderException;
import io.paycallback.provider.RefundAnswer;
import io.paycallback.provider.RefundOrder;
import io.paycallback.providercall.ProviderCallConfig;
import io.paycallback.providercall.ProviderCallHandler;
import io.paycallback.providercall.ProviderCalls;
import io.paycallback.tracing.Traceparent;
import io.paycallback.tracing.Tracing;
import io.paycallback.trade.ChannelId;
import io.paycallback.trade.Money;
import io.paycallback.trade.OutTradeNo;
import io.paycallback.trade.RefundNo;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.inject.Singleton;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
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
@Singleton
public class RefundSubmitter extends ProviderCallHandler<RefundSubmitter.Submission> {

    static final String FIND = "SELECT merchant_id, channel, refund_no, traceparent FROM refund_submissions WHERE id = ?";
    private static final String AWAITING = "accepted, awaiting the refund's final state";
    private static final String DEAD_LETTER = "dead letter: ";
    static final String SUBMIT = "refund";
    static final String QUERY = "refund-query";

    private final Refunds refunds;
    private final StoredCallbacks callbacks;
    private final CallbackInbox inbox;
    private final Outbox outbox;
    private final ProviderClients providers;
    private final List<Duration> schedule;

    public RefundSubmitter(Pool pool, LeaseStatements leases, ProviderCalls calls, Refunds refunds, StoredCallbacks callbacks,
                           CallbackInbox inbox, Outbox outbox, ProviderClients providers, Tracing tracing,
                           ProviderConfig providerConfig, ProviderCallConfig rounds) {
        super(Refunds.SUBMISSIONS, SubmissionTry.class, pool, leases, calls, providerConfig.timeout().multipliedBy(2),
                tracing);
        this.refunds = refunds;
        this.callbacks = callbacks;
        this.inbox = inbox;
        this.outbox = outbox;
        this.providers = providers;
        this.schedule = rounds.schedule();
    }

    /** The refund a submission row is about. */
    /** @param traceparent the span that decided on the refund */
    public record Submission(long id, String merchantId, String channel, String refundNo,
                             Optional<Traceparent> traceparent) {
    }

    /** What a submission row's try came to, when it was not a dead letter. */
    enum SubmissionTry {
        /** The refund was settled already, or is gone: nothing to submit. */
        DUPLICATE,
        /** The provider accepted the refund. */
        REFUND_SUBMITTED,
        /** The provider's answer to our query was final; it is stored like the provider's notice. */
        REFUND_SETTLED,
        /** Accepted, not final yet: asked again on the schedule. */
        QUERIED
    }

    @Override
    protected Optional<Traceparent> cause(Submission row) {
        return row.traceparent();
    }

    @Override
    protected Uni<Submission> load(SqlClient client, long id) {
        return find(client, id);
    }

    @Override
    protected AfterCall call(RowLease lease, Submission submission, Calls calls) {
        Optional<Refunds.Request> request = refunds.findRequest(pool, submission.merchantId(), submission.channel(),
                submission.refundNo()).await().atMost(timeout);
        if (request.isEmpty() || request.get().status().settled()) {
            return new Finished(SubmissionTry.DUPLICATE);
        }
        Refunds.Request refund = request.get();
        Optional<ProviderClient> client = ChannelId.fromPath(submission.channel())
                .flatMap(channel -> providers.find(channel, submission.merchantId()));
        if (client.isEmpty()) {
            return new GiveUp("no " + submission.channel() + " API keys for this merchant: refund it by hand");
        }
        StoredPayment payment = refund.channelTradeNo() == null ? null : callbacks.processedPayment(pool,
                submission.merchantId(), submission.channel(), refund.channelTradeNo()).await().atMost(timeout);
        RefundOrder order = new RefundOrder(submission.merchantId(), new RefundNo(submission.refundNo()),
                refund.outTradeNo(), refund.channelTradeNo(), refund.amount(),
                payment == null ? refund.amount() : new Money(payment.paid().amount(), refund.amount().currency()),
                refund.reason());
        return refund.status() == RefundStatus.REQUESTED
                ? submit(lease, submission, refund, client.get(), order, calls)
                : awaitFinalState(lease, submission, refund, client.get(), order, calls);
    }

    private AfterCall submit(RowLease lease, Submission submission, Refunds.Request refund, ProviderClient client,
                           RefundOrder order, Calls calls) {
        RefundAnswer answer;
        try {
            answer = calls.ask(submission.merchantId(), OutTradeNo.valueOrNull(refund.outTradeNo()), client.channel(),
                    SUBMIT, submission.refundNo(), () -> client.submitRefund(order),
                    accepted -> accepted.settled().map(RefundSubmitter::said).orElse("accepted, not final"), timeout);
        } catch (ProviderException failed) {
            if (failed.rejected()) {
                return new GiveUp("refund rejected: " + failed.getMessage());
            }
            throw failed;
        }
        Optional<String> mismatch = answer.settled().flatMap(settled -> mismatch(refund, settled));
        if (mismatch.isPresent()) {
            return new GiveUp(mismatch.get());
        }
        // Stored before the row is finished: a failure here retries the submission, which the provider answers again.
        answer.settled().ifPresent(settled -> store(settled, answer.body()));
        Writes accepted = tx -> refunds.markSubmitted(tx, submission.merchantId(), submission.channel(),
                        submission.refundNo(), answer.channelRefundId())
                .chain(() -> outbox.emit(tx, new DownstreamEvent.RefundSubmitted(source(submission),
                        subject(submission, refund))))
                .map(Emitted::new);
        return answer.settled().isPresent()
                ? new Finished(SubmissionTry.REFUND_SUBMITTED, accepted)
                : new Again(SubmissionTry.REFUND_SUBMITTED, delay(lease), AWAITING, accepted);
    }

    /**
     * Accepted but not final: ask on the query schedule until the answer, or the provider's notice, settles it; after
     * the last query, a dead letter and an alert, never silence.
     */
    private AfterCall awaitFinalState(RowLease lease, Submission submission, Refunds.Request refund, ProviderClient client,
                                    RefundOrder order, Calls calls) {
        Optional<Notice.Refund> settled = calls.ask(submission.merchantId(), OutTradeNo.valueOrNull(refund.outTradeNo()), client.channel(),
                QUERY, submission.refundNo(), () -> client.queryRefund(order, refund.channelRefundId()),
                answer -> answer.map(RefundSubmitter::said).orElse("not final"), timeout);
        if (settled.isPresent()) {
            Optional<String> mismatch = mismatch(refund, settled.get());
            if (mismatch.isPresent()) {
                return new GiveUp(mismatch.get());
            }
            store(settled.get(), settled.get().toString().getBytes(StandardCharsets.UTF_8));
            return new Finished(SubmissionTry.REFUND_SETTLED);
        }
        return nextRound(lease, schedule, SubmissionTry.QUERIED, AWAITING, () -> "refund " + submission.refundNo()
                + " still not final after " + (lease.failures() + 1) + " queries");
    }

    /**
     * A provider's answer that moves money must be about this refund's amount and currency: anything else is a person's
     * to look at, never applied.
     */
    static Optional<String> mismatch(Refunds.Request refund, Notice.Refund answer) {
        boolean sameCurrency = refund.amount().currency().equalsIgnoreCase(answer.currency());
        boolean sameAmount = answer.amount() == null || refund.amount().amount().compareTo(answer.amount().amount()) == 0;
        if (sameCurrency && sameAmount) {
            return Optional.empty();
        }
        return Optional.of("amount mismatch: refund " + refund.amount().amount().toPlainString() + " " + refund.amount().currency()
                + ", provider answered " + (answer.amount() == null ? "-" : answer.amount().amount().toPlainString()) + " "
                + answer.currency());
    }

    private static String said(Notice.Refund settled) {
        return settled.result().name().toLowerCase(Locale.ROOT)
                + (settled.amount() == null ? "" : " " + settled.amount().amount().toPlainString() + " " + settled.currency());
    }

    private Duration delay(RowLease lease) {
        return schedule.get(Math.min(lease.failures(), schedule.size() - 1));
    }

    /** Stored under the refund notice's key: whichever of it and the provider's own notice comes first counts. */
    private void store(Notice.Refund settled, byte[] body) {
        inbox.reserve(settled, body, Pickup.SCANNER, Origin.SUBMISSION, Traceparent.current()).await().atMost(timeout);
    }

    /**
     * The alert for a submission given up on: at once (refused, mismatched, never final), with the refund's own event
     * fields; or after its last failed try, which {@link ProviderCallHandler#giveUp} marks as a dead letter.
     */
    @Override
    protected Uni<AfterCommit> alert(SqlClient transaction, Submission submission, String reason) {
        return refunds.findRequest(transaction, submission.merchantId(), submission.channel(), submission.refundNo())
                .flatMap(refund -> outbox.emit(transaction, refund.isPresent() && !reason.startsWith(DEAD_LETTER)
                        ? new DownstreamEvent.Alert(source(submission), subject(submission, refund.get()), reason)
                        : new DownstreamEvent.Alert(source(submission), new Subject.Trade(submission.merchantId(),
                        refund.map(Refunds.Request::outTradeNo).orElse(null), submission.channel(),
                        refund.map(Refunds.Request::channelTradeNo).orElse(null),
                        refund.map(Refunds.Request::amount).map(Money::amount).orElse(null),
                        refund.map(Refunds.Request::amount).map(Money::currency).orElse(null)),
                        DEAD_LETTER + "refund " + submission.refundNo() + " not submitted: "
                                + reason.substring(reason.startsWith(DEAD_LETTER) ? DEAD_LETTER.length() : 0))))
                .map(Emitted::new);
    }

    private static Uni<Submission> find(SqlClient client, long id) {
        return client.preparedQuery(FIND).execute(Tuple.of(id)).map(rows -> {
            var iterator = rows.iterator();
            if (!iterator.hasNext()) {
                throw new IllegalStateException("refund submission #" + id + " is gone");
            }
            Row row = iterator.next();
            return new Submission(id, row.getString("merchant_id"), row.getString("channel"), row.getString("refund_no"),
                    Traceparent.parse(row.getString("traceparent")));
        });
    }

    private static String source(Submission submission) {
        return "submission:" + submission.id();
    }

    private static Subject.Refund subject(Submission submission, Refunds.Request refund) {
        return new Subject.Refund(submission.merchantId(), submission.channel(),
                refund.outTradeNo(), refund.channelTradeNo(), new RefundNo(submission.refundNo()), refund.amount().amount(),
                refund.amount().currency());
    }
}
