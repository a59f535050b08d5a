package io.paycallback.order;

import io.paycallback.inbox.StoredCallbacks;
import io.paycallback.inbox.StoredPayment;
import io.paycallback.inbox.StoredRefund;
import io.paycallback.outbox.DownstreamEvent;
import io.paycallback.outbox.Subject;
import io.paycallback.trade.Money;
import io.paycallback.trade.OutTradeNo;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlClient;
import jakarta.enterprise.context.ApplicationScoped;

import java.math.BigDecimal;
import java.util.List;

/**
 * Settles a refund callback inside the caller's transaction, by the same rule as payments: only the conditional
 * change that actually happened emits effects. A refund of a payment we have not processed yet waits for it. The
 * payment's refunded total follows {@link RefundedTotal}; a refund in another currency than its payment's, or one that
 * would take the total beyond what was paid, changes nothing and is dead-lettered for a person.
 */
@ApplicationScoped
public class RefundTransition implements CallbackTransition<StoredRefund> {

    private static final String PROVIDER_REASON = "provider";

    private final StoredCallbacks callbacks;
    private final Orders orders;
    private final Refunds refunds;

    public RefundTransition(StoredCallbacks callbacks, Orders orders, Refunds refunds) {
        this.callbacks = callbacks;
        this.orders = orders;
        this.refunds = refunds;
    }

    /** One by one: each reads its payment and the refunded total under its order's lock. */
    @Override
    public Uni<List<Transition>> applyAll(SqlClient transaction, List<StoredRefund> notices) {
        return Multi.createFrom().iterable(notices)
                .onItem().transformToUniAndConcatenate(refund -> apply(transaction, refund))
                .collect().asList();
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
                    if (!payment.paid().currency().equals(refund.currency())) {
                        return deadLetter(refund, payment, "currency mismatch: payment " + payment.paid().currency()
                                + ", refund " + refund.currency());
                    }
                    // The order's lock serialises every refund of its payments, so the total read below stays true.
                    return orders.findCurrent(transaction, refund.merchantId(), payment.outTradeNo())
                            .chain(() -> refunds.findCurrent(transaction, refund.merchantId(), refund.channel(), refund.refundNo()))
                            .flatMap(existing -> existing.isPresent() && existing.get().status().settled()
                                    ? Uni.createFrom().item(Transition.duplicate())
                                    : settle(transaction, refund, payment,
                                    refund.amount() != null ? refund.amount() : existing.map(Refunds.Existing::amount).orElse(null)));
                });
    }

    private Uni<Transition> settle(SqlClient transaction, StoredRefund refund, StoredPayment payment, BigDecimal ownAmount) {
        OutTradeNo outTradeNo = orderOf(refund, payment);
        return refunds.refundedCurrent(transaction, refund.merchantId(), refund.channel(), refund.channelTradeNo())
                .flatMap(before -> {
                    RefundedTotal after = refund.succeeded() ? before.with(ownAmount, refund.refundedTotal()) : before;
                    Money paid = payment.paid();
                    if (after.value().compareTo(paid.amount()) > 0) {
                        return deadLetter(refund, payment, "over-refund: paid "
                                + paid.amount().toPlainString() + " " + paid.currency() + ", refunded would be "
                                + after.value().toPlainString());
                    }
                    Refunds.Refund settled = new Refunds.Refund(refund.merchantId(), refund.channel(), refund.refundNo(),
                            refund.channelRefundId(), refund.channelTradeNo(), outTradeNo, ownAmount,
                            refund.refundedTotal(), refund.currency(),
                            refund.succeeded() ? RefundStatus.SUCCEEDED : RefundStatus.FAILED, PROVIDER_REASON);
                    return refunds.settle(transaction, settled).flatMap(changed -> {
                        if (!changed) {
                            return Uni.createFrom().item(Transition.duplicate());
                        }
                        return refund.succeeded()
                                ? succeeded(transaction, refund, payment, outTradeNo, before.value(), after.value())
                                : failed(refund, outTradeNo);
                    });
                });
    }

    private Uni<Transition> succeeded(SqlClient transaction, StoredRefund refund, StoredPayment payment,
                                      OutTradeNo outTradeNo, BigDecimal before, BigDecimal after) {
        DownstreamEvent event = new DownstreamEvent.RefundSucceeded(source(refund), subject(refund, outTradeNo),
                after.subtract(before), after);
        return orders.recordRefunded(transaction, payment, after)
                .map(ignored -> Transition.of(Transition.Kind.REFUND_SETTLED, List.of(event)));
    }

    private Uni<Transition> failed(StoredRefund refund, OutTradeNo outTradeNo) {
        return Uni.createFrom().item(Transition.of(Transition.Kind.REFUND_SETTLED,
                List.of(new DownstreamEvent.RefundFailed(source(refund), subject(refund, outTradeNo), "refund failed"),
                        new DownstreamEvent.Alert(source(refund), subject(refund, outTradeNo), "refund failed"))));
    }

    private Uni<Transition> deadLetter(StoredRefund refund, StoredPayment payment, String reason) {
        return Uni.createFrom().item(Transition.deadLetter(reason,
                new DownstreamEvent.Alert(source(refund), subject(refund, orderOf(refund, payment)), reason)));
    }

    /** The order the notice named, else its payment's. */
    private static OutTradeNo orderOf(StoredRefund refund, StoredPayment payment) {
        return refund.outTradeNo() != null ? refund.outTradeNo() : payment.outTradeNo();
    }

    /**
     * The alert for a notice given up on after its tries: its payment may never have been found, so the order is the
     * one the notice named, if any.
     */
    @Override
    public DownstreamEvent alert(StoredRefund refund, String reason) {
        return new DownstreamEvent.Alert(source(refund), subject(refund, refund.outTradeNo()), reason);
    }

    static String source(StoredRefund refund) {
        return "refund:" + refund.id();
    }

    /** Both trade numbers may be unknown only for a notice given up on before its payment was found. */
    private static Subject.Refund subject(StoredRefund refund, OutTradeNo outTradeNo) {
        return new Subject.Refund(refund.merchantId(), refund.channel(), outTradeNo, refund.channelTradeNo(),
                refund.refundNo(), refund.amount(), refund.currency());
    }
}
