package io.paycallback.submission;

import io.paycallback.inbox.CallbackInbox;
import io.paycallback.inbox.StoredCallbacks;
import io.paycallback.inbox.StoredPendingRefund;
import io.paycallback.lease.AfterCommit;
import io.paycallback.lease.Attempted;
import io.paycallback.lease.BatchTransactions;
import io.paycallback.lease.RowLease;
import io.paycallback.lease.LeaseHandler;
import io.paycallback.lease.LeasedRow;
import io.paycallback.lease.LeasedTable;
import io.paycallback.order.RefundStatus;
import io.paycallback.order.RefundSubmissions;
import io.paycallback.order.Refunds;
import io.paycallback.outbox.DownstreamEvent;
import io.paycallback.outbox.Emitted;
import io.paycallback.outbox.Outbox;
import io.paycallback.outbox.Subject;
import io.paycallback.trade.ChannelId;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlClient;
import jakarta.inject.Singleton;

import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Stored notices of a refund the provider accepted and is still working on, that we did not submit (a refund made in
 * the provider's dashboard): each is recorded as a SUBMITTED refund and asked about on the query schedule exactly like
 * one of ours, so that a refund whose final notice never comes is settled by a query, or alerted after the last one.
 * Without the merchant's API keys for the provider only the refund is recorded, and its final notice settles it. Its
 * final notice, whenever it comes, settles it under the same key.
 */
@Singleton
public class PendingRefunds implements LeaseHandler {

    static final String PROVIDER_REASON = "provider";
    static final String ENROLLED = "enrolled";
    static final String KNOWN = "known";

    /** Rows lock their refund's key: taken in one order, two batches never wait for each other in a circle. */
    private static final Comparator<StoredPendingRefund> LOCK_ORDER = Comparator.comparing(StoredPendingRefund::merchantId)
            .thenComparing(StoredPendingRefund::channel)
            .thenComparing(pending -> pending.refundNo().value());

    private final BatchTransactions batches;
    private final StoredCallbacks callbacks;
    private final Refunds refunds;
    private final Outbox outbox;
    private final RefundSubmissions submissions;

    public PendingRefunds(BatchTransactions batches, StoredCallbacks callbacks, Refunds refunds, Outbox outbox,
                          RefundSubmissions submissions) {
        this.batches = batches;
        this.callbacks = callbacks;
        this.refunds = refunds;
        this.outbox = outbox;
        this.submissions = submissions;
    }

    @Override
    public LeasedTable table() {
        return CallbackInbox.PENDING_REFUNDS;
    }

    @Override
    public boolean batches() {
        return true;
    }

    @Override
    public List<String> results() {
        return List.of(ENROLLED, KNOWN);
    }

    @Override
    public Attempted attempt(List<LeasedRow> batch) {
        return batches.run(batch.stream().map(LeasedRow::lease).toList(), this::enrolAll);
    }

    private Uni<BatchTransactions.Applied> enrolAll(SqlClient transaction, List<RowLease> leases) {
        Map<Long, RowLease> byId = new HashMap<>();
        leases.forEach(lease -> byId.put(lease.id(), lease));
        return callbacks.pendingRefunds(transaction, List.copyOf(byId.keySet()))
                .onItem().transformToMulti(rows -> Multi.createFrom().iterable(rows.stream().sorted(LOCK_ORDER).toList()))
                .onItem().transformToUniAndConcatenate(pending -> enrol(transaction, pending).map(enrolled ->
                        BatchTransactions.Step.done(byId.get(pending.id()), enrolled ? ENROLLED : KNOWN)))
                .collect().asList()
                .map(steps -> new BatchTransactions.Applied(steps, AfterCommit.NOTHING));
    }

    /** @return false when the refund is known already (ours, or an earlier notice of it): nothing new */
    private Uni<Boolean> enrol(SqlClient transaction, StoredPendingRefund pending) {
        Refunds.Refund refund = new Refunds.Refund(pending.merchantId(), pending.channel(), pending.refundNo(),
                pending.channelRefundId(), pending.channelTradeNo(), pending.outTradeNo(), pending.amount().amount(),
                null, pending.amount().currency(), RefundStatus.SUBMITTED, PROVIDER_REASON);
        boolean query = ChannelId.fromPath(pending.channel())
                .map(channel -> submissions.canSubmit(channel, pending.merchantId())).orElse(false);
        return refunds.request(transaction, refund, query, pending.traceparent());
    }

    @Override
    public Uni<AfterCommit> giveUp(SqlClient transaction, RowLease lease, String reason) {
        return callbacks.pendingRefund(transaction, lease.id())
                .flatMap(pending -> outbox.emit(transaction, new DownstreamEvent.Alert("refund-pending:" + pending.id(),
                        new Subject.Refund(pending.merchantId(), pending.channel(), pending.outTradeNo(),
                                pending.channelTradeNo(), pending.refundNo(), pending.amount().amount(),
                                pending.amount().currency()),
                        "dead letter: " + reason)))
                .map(Emitted::new);
    }
}
