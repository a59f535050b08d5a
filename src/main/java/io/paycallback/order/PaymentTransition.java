package io.paycallback.order;

import io.paycallback.inbox.StoredPayment;
import io.paycallback.outbox.DownstreamEvent;
import io.paycallback.outbox.Subject;
import io.paycallback.trade.Money;
import io.paycallback.trade.RefundNo;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlClient;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.List;

/**
 * PENDING to PAID exactly once, inside the caller's transaction. Only the conditional update that actually moved the
 * order emits its effects; a notice that finds the order in any other state goes through {@link StalePayment}.
 */
@ApplicationScoped
public class PaymentTransition implements CallbackTransition<StoredPayment> {

    private final Orders orders;
    private final Refunds refunds;
    private final RefundSubmissions submissions;

    public PaymentTransition(Orders orders, Refunds refunds, RefundSubmissions submissions) {
        this.orders = orders;
        this.refunds = refunds;
        this.submissions = submissions;
    }

    /**
     * The conditional update comes first and carries the amount check, so the common case is one statement; only when
     * it changes nothing is the order read (a locking read: the transaction's snapshot may predate the change that
     * made the update miss) to tell a mismatch, an unknown order and a stale notice apart.
     */
    public Uni<Transition> apply(SqlClient transaction, StoredPayment payment) {
        return orders.markPaid(transaction, payment)
                .flatMap(moved -> moved ? Uni.createFrom().item(paid(payment)) : notMoved(transaction, payment));
    }

    /**
     * Many payments in one transaction: when every order moves, with one statement; otherwise each as {@link #apply}.
     *
     * @return the transitions in the payments' order
     */
    @Override
    public Uni<List<Transition>> applyAll(SqlClient transaction, List<StoredPayment> payments) {
        if (payments.size() == 1) {
            return apply(transaction, payments.get(0)).map(List::of);
        }
        return orders.markAllPaid(transaction, payments).flatMap(all -> all
                ? Uni.createFrom().item(payments.stream().map(PaymentTransition::paid).toList())
                : Multi.createFrom().iterable(payments)
                .onItem().transformToUniAndConcatenate(payment -> apply(transaction, payment))
                .collect().asList());
    }

    private Uni<Transition> notMoved(SqlClient transaction, StoredPayment payment) {
        return orders.findCurrent(transaction, payment.merchantId(), payment.outTradeNo()).flatMap(found -> {
            if (found.isEmpty()) {
                return Uni.createFrom().failure(new NotYetSettledException("order " + payment.outTradeNo() + " is unknown"));
            }
            Order order = found.get();
            Money paid = payment.paid();
            if (!order.amount().sameAs(paid)) {
                return amountMismatch(payment, order);
            }
            return stale(transaction, payment, order);
        });
    }

    private static Transition paid(StoredPayment payment) {
        return Transition.of(Transition.Kind.PAID,
                List.of(new DownstreamEvent.OrderPaid(source(payment), subject(payment))));
    }

    private Uni<Transition> stale(SqlClient transaction, StoredPayment payment, Order order) {
        StalePayment stale = StalePayment.of(order, payment.channel(), payment.channelTradeNo());
        if (stale == StalePayment.DUPLICATE) {
            return Uni.createFrom().item(Transition.duplicate());
        }
        if (!stale.refunds()) {
            return Uni.createFrom().failure(new NotYetSettledException(
                    "order " + payment.outTradeNo() + " is " + order.status() + ", cannot settle a payment"));
        }
        return refund(transaction, payment, stale);
    }

    private Uni<Transition> refund(SqlClient transaction, StoredPayment payment, StalePayment stale) {
        RefundNo refundNo = new RefundNo("RFP" + payment.id());
        Subject.Refund refunded = subject(payment).refundInFull(refundNo);
        Refunds.Refund refund = new Refunds.Refund(payment.merchantId(), payment.channel(), refundNo, null,
                payment.channelTradeNo(), payment.outTradeNo(), payment.paid().amount(), null, payment.paid().currency(),
                RefundStatus.REQUESTED, stale.reason());
        boolean submit = payment.provider().map(channel -> submissions.canSubmit(channel, payment.merchantId())).orElse(false);
        return refunds.request(transaction, refund, submit, payment.traceparent()).map(requested -> requested
                ? new Transition(Transition.Kind.REFUND_REQUESTED, stale.reason(),
                List.of(new DownstreamEvent.RefundRequested(source(payment), refunded, stale.reason()),
                        new DownstreamEvent.Alert(source(payment), refunded, stale.reason())))
                : Transition.duplicate());
    }

    private Uni<Transition> amountMismatch(StoredPayment payment, Order order) {
        String reason = "amount mismatch: order " + order.amount() + ", callback " + payment.paid();
        return Uni.createFrom().item(Transition.deadLetter(reason, alert(payment, reason)));
    }

    static String source(StoredPayment payment) {
        return "pay:" + payment.id();
    }

    /** The alert about the payment itself, whether dead-lettered at once or after its tries. */
    @Override
    public DownstreamEvent alert(StoredPayment payment, String reason) {
        return new DownstreamEvent.Alert(source(payment), subject(payment), reason);
    }

    private static Subject.Payment subject(StoredPayment payment) {
        return new Subject.Payment(payment.merchantId(), payment.channel(), payment.outTradeNo(),
                payment.channelTradeNo(), payment.paid());
    }
}
