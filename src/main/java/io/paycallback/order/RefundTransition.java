package io.paycallback.order;

import io.paycallback.ledger.StoredCallbacks;
import io.paycallback.ledger.StoredPayment;
import io.paycallback.ledger.StoredRefund;
import io.paycallback.outbox.DownstreamEvent;
import io.paycallback.outbox.Emission;
import io.paycallback.outbox.EventType;
import io.paycallback.outbox.Outbox;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlClient;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.ArrayList;
import java.util.List;

/**
 * Settles a refund callback inside the caller's transaction, by the same rule as payments: only the conditional
 * change that actually happened emits effects. A refund of a payment we have not processed yet waits for it.
 */
@ApplicationScoped
public class RefundTransition {

    private static final String PROVIDER_REASON = "provider";

    private final StoredCallbacks callbacks;
    private final Orders orders;
    private final Refunds refunds;
    private final Outbox outbox;

    public RefundTransition(StoredCallbacks callbacks, Orders orders, Refunds refunds, Outbox outbox) {
        this.callbacks = callbacks;
        this.orders = orders;
        this.refunds = refunds;
        this.outbox = outbox;
    }

    public Uni<Transition> apply(SqlClient transaction, StoredRefund refund) {
        if (refund.channelTradeNo() == null) {
            return Uni.createFrom().failure(new NotYetSettledException("refund " + refund.refundNo() + " names no payment"));
        }
        return callbacks.processedPayment(transaction, refund.merchantId(), refund.channel(), refund.channelTradeNo())
                .flatMap(payment -> {
                    if (payment == null) {
                        return Uni.createFrom().failure(new NotYetSettledException(
                                "payment " + refund.channelTradeNo() + " of refund " + refund.refundNo() + " is not processed yet"));
                    }
                    return settle(transaction, refund, payment);
                });
    }

    private Uni<Transition> settle(SqlClient transaction, StoredRefund refund, StoredPayment payment) {
        String outTradeNo = refund.outTradeNo() != null ? refund.outTradeNo() : payment.outTradeNo();
        Refunds.Refund settled = new Refunds.Refund(refund.merchantId(), refund.channel(), refund.refundNo(),
                refund.channelRefundId(), outTradeNo, refund.channelTradeNo(), refund.amount(), refund.currency(),
                refund.succeeded() ? Refunds.SUCCEEDED : Refunds.FAILED, PROVIDER_REASON);
        return refunds.settle(transaction, settled).flatMap(changed -> {
            if (!changed) {
                return Uni.createFrom().item(Transition.of(Transition.Result.DUPLICATE, List.of()));
            }
            return refund.succeeded() ? succeeded(transaction, refund, outTradeNo) : failed(transaction, refund, outTradeNo);
        });
    }

    private Uni<Transition> succeeded(SqlClient transaction, StoredRefund refund, String outTradeNo) {
        // Counts only against the order's own payment; a refund of a second payment leaves the order as it is.
        return orders.addRefund(transaction, refund.merchantId(), outTradeNo, refund.channel(), refund.channelTradeNo(),
                        refund.amount())
                .chain(() -> outbox.emit(transaction, event(refund, outTradeNo, EventType.REFUND_SUCCEEDED, null)))
                .map(ids -> Transition.of(Transition.Result.REFUND_SETTLED, ids));
    }

    private Uni<Transition> failed(SqlClient transaction, StoredRefund refund, String outTradeNo) {
        List<Emission> emitted = new ArrayList<>();
        return outbox.emit(transaction, event(refund, outTradeNo, EventType.REFUND_FAILED, "refund failed"))
                .invoke(emitted::addAll)
                .chain(() -> outbox.emit(transaction, event(refund, outTradeNo, EventType.ALERT, "refund failed")))
                .invoke(emitted::addAll)
                .map(ignored -> Transition.of(Transition.Result.REFUND_SETTLED, emitted));
    }

    /** The alert for a refund callback that could not be settled in all its tries. */
    public Uni<List<Emission>> giveUp(SqlClient transaction, StoredRefund refund, String reason) {
        return outbox.emit(transaction, event(refund, refund.outTradeNo(), EventType.ALERT, "dead letter: " + reason));
    }

    static String source(StoredRefund refund) {
        return "refund:" + refund.id();
    }

    private static DownstreamEvent event(StoredRefund refund, String outTradeNo, String type, String reason) {
        return new DownstreamEvent(source(refund), type, refund.merchantId(), outTradeNo, refund.channel(),
                refund.channelTradeNo(), refund.refundNo(), refund.amount(), refund.currency(), reason);
    }
}
