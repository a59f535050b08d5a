package io.paycallback.closing;

import io.paycallback.inbox.CallbackInbox;
import io.paycallback.inbox.Origin;
import io.paycallback.inbox.Reservation;
import io.paycallback.lease.AfterCommit;
import io.paycallback.lease.RowLease;
import io.paycallback.lease.LeaseStatements;
import io.paycallback.lease.Pickup;
import io.paycallback.order.Order;
import io.paycallback.order.OrderStatus;
import io.paycallback.order.Orders;
import io.paycallback.outbox.DownstreamEvent;
import io.paycallback.outbox.Emitted;
import io.paycallback.outbox.Outbox;
import io.paycallback.outbox.Subject;
import io.paycallback.provider.CloseAnswer;
import io.paycallback.provider.OrderRef;
import io.paycallback.provider.ProviderClient;
import io.paycallback.provider.ProviderClients;
import io.paycallback.provider.ProviderConfig;
import io.paycallback.provider.ProviderException;
import io.paycallback.providercall.ProviderCallHandler;
import io.paycallback.providercall.ProviderCalls;
import io.paycallback.tracing.Traceparent;
import io.paycallback.tracing.Tracing;
import io.paycallback.trade.OutTradeNo;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.SqlClient;
import jakarta.inject.Singleton;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * One try of closing a CLOSING order at every provider the merchant has API keys for (the buyer may have opened a
 * payment page at any of them). All say closed or never created → CLOSED. One says paid → its verified query answer
 * is stored like a callback and handed to a worker at once, so the order becomes PAID through the usual transition,
 * with its one {@code order.paid}. A provider not reached → the backoff; a refusal that no query explains → dead
 * letter and alert at once, the order staying CLOSING for an operator. An order no longer CLOSING (a payment came
 * first) ends the request without a call.
 */
@Singleton
public class CloseHandler extends ProviderCallHandler<CloseRequests.CloseRequest> {

    static final String OPERATION = "close";

    /** What a close request's try came to, when it was not a dead letter. */
    enum CloseTry {
        /** Every provider said closed, or never created: the order is CLOSED. */
        CLOSED,
        /** A provider said paid: its answer is stored, and the order becomes PAID through it. */
        FOUND_PAID,
        /** The order was no longer CLOSING (a payment came first): nothing to close. */
        ENDED
    }

    private final CloseRequests requests;
    private final Orders orders;
    private final CallbackInbox inbox;
    private final Outbox outbox;
    private final ProviderClients providers;

    public CloseHandler(Pool pool, LeaseStatements leases, ProviderCalls calls, CloseRequests requests, Orders orders,
                        CallbackInbox inbox, Outbox outbox, ProviderClients providers, Tracing tracing,
                        ProviderConfig config) {
        super(CloseRequests.TABLE, CloseTry.class, pool, leases, calls, config.timeout().multipliedBy(2),
                tracing);
        this.requests = requests;
        this.orders = orders;
        this.inbox = inbox;
        this.outbox = outbox;
        this.providers = providers;
    }

    @Override
    protected Optional<Traceparent> cause(CloseRequests.CloseRequest row) {
        return row.traceparent();
    }

    @Override
    protected Uni<CloseRequests.CloseRequest> load(SqlClient client, long id) {
        return requests.find(client, id);
    }

    @Override
    protected AfterCall call(RowLease lease, CloseRequests.CloseRequest request, Calls calls) {
        Optional<Order> order = orders.find(pool, request.merchantId(), request.outTradeNo()).await().atMost(timeout);
        if (order.isEmpty() || order.get().known() != OrderStatus.CLOSING) {
            boolean paid = order.map(found -> found.status() == OrderStatus.PAID || found.status() == OrderStatus.REFUNDED)
                    .orElse(false);
            return new Finished(CloseTry.ENDED, outcome(request, paid ? CloseRequests.Ending.PAID
                    : CloseRequests.Ending.ENDED, AfterCommit.NOTHING));
        }
        List<ProviderException> failures = new ArrayList<>();
        for (ProviderClient client : providers.forMerchant(request.merchantId())) {
            CloseAnswer answer;
            try {
                answer = calls.ask(request.merchantId(), request.outTradeNo(), client.channel(), OPERATION, null,
                        () -> client.closePayment(new OrderRef(request.merchantId(), new OutTradeNo(request.outTradeNo()),
                                order.get().combineOutTradeNo())), CloseAnswer::said, timeout);
            } catch (ProviderException failed) {
                failures.add(failed);
                continue;
            }
            if (answer instanceof CloseAnswer.AlreadyPaid paid) {
                Reservation stored = inbox.reserve(paid.paid().payment(), paid.paid().body(), Pickup.CALLER, Origin.QUERY,
                        Traceparent.current())
                        .await().atMost(timeout);
                AfterCommit handOver = stored instanceof Reservation.Reserved reserved && reserved.lease().isPresent()
                        ? () -> List.of(reserved.lease().get()) : AfterCommit.NOTHING;
                return new Finished(CloseTry.FOUND_PAID, outcome(request, CloseRequests.Ending.PAID, handOver));
            }
        }
        Optional<ProviderException> refused = failures.stream().filter(ProviderException::rejected).findFirst();
        if (refused.isPresent()) {
            return new GiveUp("close refused: " + refused.get().getMessage());
        }
        if (!failures.isEmpty()) {
            throw failures.get(0);
        }
        return new Finished(CloseTry.CLOSED, tx -> orders.finishClosing(tx, request.merchantId(), request.outTradeNo())
                .flatMap(closed -> requests.setOutcome(tx, request.id(),
                        closed ? CloseRequests.Ending.CLOSED : CloseRequests.Ending.ENDED))
                .replaceWith(AfterCommit.NOTHING));
    }

    private Writes outcome(CloseRequests.CloseRequest request, CloseRequests.Ending outcome, AfterCommit next) {
        return tx -> requests.setOutcome(tx, request.id(), outcome).replaceWith(next);
    }

    @Override
    protected Uni<AfterCommit> alert(SqlClient transaction, CloseRequests.CloseRequest request, String reason) {
        return outbox.emit(transaction, new DownstreamEvent.Alert("close:" + request.id(),
                        Subject.Trade.order(request.merchantId(), new OutTradeNo(request.outTradeNo())),
                        "order " + request.outTradeNo() + " stays CLOSING, an operator decides: " + reason))
                .map(Emitted::new);
    }
}
