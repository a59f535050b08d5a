package io.paycallback.orderquery;

import java.util.Optional;
import io.paycallback.order.Order;
import io.paycallback.provider.OrderRef;
import io.paycallback.inbox.CallbackInbox;
import io.paycallback.inbox.Origin;
import io.paycallback.inbox.Reservation;
import io.paycallback.lease.AfterCommit;
import io.paycallback.lease.RowLease;
import io.paycallback.lease.LeaseStatements;
import io.paycallback.lease.Pickup;
import io.paycallback.order.OrderStatus;
import io.paycallback.order.Orders;
import io.paycallback.outbox.DownstreamEvent;
import io.paycallback.outbox.Emitted;
import io.paycallback.outbox.Outbox;
import io.paycallback.outbox.Subject;
import io.paycallback.provider.PaymentAnswer;
import io.paycallback.provider.ProviderClient;
import io.paycallback.provider.ProviderClients;
import io.paycallback.provider.ProviderConfig;
import io.paycallback.provider.ProviderException;
import io.paycallback.providercall.ProviderCallConfig;
import io.paycallback.providercall.ProviderCallHandler;
import io.paycallback.providercall.ProviderCalls;
import io.paycallback.tracing.Traceparent;
import io.paycallback.tracing.Tracing;
import io.paycallback.trade.OutTradeNo;
import io.quarkus.scheduler.Scheduled;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.SqlClient;
import jakarta.inject.Singleton;
import org.jboss.logging.Logger;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The active query: a PENDING order whose callback never came is asked about on {@code paycallback.reconcile.schedule}.
 * A paid answer is stored exactly like a callback (same unique key, so whichever of the two comes first is the one
 * fact, and the other is a duplicate) and goes through the same transition; the answer never changes an order itself.
 * Runs on a worker thread under the query row's lease, which it finishes, reschedules or buries itself.
 */
@Singleton
public class OrderQueryHandler extends ProviderCallHandler<OrderQueries.OrderQuery> {

    private static final Logger LOG = Logger.getLogger(OrderQueryHandler.class);
    static final String OPERATION = "payment-query";

    private final OrderQueries queries;
    private final Orders orders;
    private final CallbackInbox inbox;
    private final Outbox outbox;
    private final ProviderClients providers;
    private final QueryRateLimits limits;
    private final OrderQueryMetrics metrics;
    private final OrderQueryConfig settings;
    private final List<Duration> schedule;

    public OrderQueryHandler(Pool pool, LeaseStatements leases, ProviderCalls calls, OrderQueries queries, Orders orders,
                      CallbackInbox inbox, Outbox outbox, ProviderClients providers, QueryRateLimits limits,
                      OrderQueryMetrics metrics, Tracing tracing, ProviderConfig providerConfig,
                      ProviderCallConfig rounds, OrderQueryConfig config) {
        super(OrderQueries.TABLE, QueryTry.class, pool, leases, calls, providerConfig.timeout().multipliedBy(2),
                tracing);
        this.queries = queries;
        this.orders = orders;
        this.inbox = inbox;
        this.outbox = outbox;
        this.providers = providers;
        this.limits = limits;
        this.metrics = metrics;
        this.settings = config;
        this.schedule = rounds.schedule();
    }

    @Scheduled(every = "${paycallback.retry.scan-interval}", delayed = "${paycallback.retry.scan-delay}",
            concurrentExecution = Scheduled.ConcurrentExecution.SKIP, skipExecutionIf = Scheduled.ApplicationNotRunning.class)
    void sweep() {
        try {
            enrol();
        } catch (RuntimeException e) {
            LOG.warnf("Enrolling PENDING orders for queries failed, the next sweep retries: %s", e.toString());
        }
    }

    /** Enrols PENDING orders older than {@code reconcile.after}; blocking, for the scheduler and for tests. */
    public int enrol() {
        int total = 0;
        int found;
        do {
            found = queries.enrol(settings.after(), settings.enrolBatch()).await().atMost(timeout);
            total += found;
        } while (found == settings.enrolBatch());
        return total;
    }

    /** What a query row's try came to, when it was not a dead letter. */
    enum QueryTry {
        /** The providers were asked and none has the order paid yet: the next query is scheduled. */
        QUERIED,
        /** A query found the order paid: the answer is stored like a callback and settles the order through it. */
        FOUND_PAID,
        /** The order was settled, or cannot be asked about, without a query. */
        NOT_NEEDED
    }

    @Override
    protected Uni<OrderQueries.OrderQuery> load(SqlClient client, long id) {
        return queries.find(client, id);
    }

    @Override
    protected AfterCall call(RowLease lease, OrderQueries.OrderQuery query, Calls calls) {
        Optional<Order> order = orders.find(pool, query.merchantId(), query.outTradeNo()).await().atMost(timeout);
        boolean pending = order.map(found -> found.known() == OrderStatus.PENDING).orElse(false);
        List<ProviderClient> clients = providers.forMerchant(query.merchantId());
        if (!pending || clients.isEmpty()) {
            return new Finished(QueryTry.NOT_NEEDED);
        }
        List<String> answers = new ArrayList<>();
        OrderRef asked = new OrderRef(query.merchantId(), new OutTradeNo(query.outTradeNo()),
                order.flatMap(Order::combineOutTradeNo));
        for (ProviderClient client : clients) {
            PaymentAnswer answer = ask(client, asked, answers, calls);
            if (answer instanceof PaymentAnswer.Paid paid) {
                Reservation stored = inbox.reserve(paid.payment(), paid.body(), Pickup.SCANNER, Origin.QUERY,
                        Traceparent.current()).await().atMost(timeout);
                metrics.foundPaid(client.channel(), stored instanceof Reservation.Reserved);
                LOG.warnf("Order %s of merchant %s found paid by a %s query: its callbacks were lost",
                        query.outTradeNo(), query.merchantId(), client.channel().path());
                return new Finished(QueryTry.FOUND_PAID);
            }
        }
        String summary = String.join("; ", answers);
        return nextRound(lease, schedule, QueryTry.QUERIED, summary,
                () -> "order still PENDING after " + (lease.failures() + 1) + " queries: " + summary);
    }

    private PaymentAnswer ask(ProviderClient client, OrderRef query, List<String> answers, Calls calls) {
        if (!limits.acquire(client.channel(), query.merchantId())) {
            metrics.query(client.channel(), OrderQueryMetrics.Asked.RATE_LIMITED);
            answers.add(client.channel().path() + " rate limited");
            return null;
        }
        try {
            PaymentAnswer answer = calls.ask(query.merchantId(), query.outTradeNo().value(), client.channel(), OPERATION, null,
                    () -> client.queryPayment(query), OrderQueryHandler::said, timeout);
            if (answer instanceof PaymentAnswer.NotPaid notPaid) {
                metrics.query(client.channel(), OrderQueryMetrics.Asked.NOT_PAID);
                answers.add(client.channel().path() + " " + notPaid.state());
            } else {
                metrics.query(client.channel(), OrderQueryMetrics.Asked.PAID);
            }
            return answer;
        } catch (ProviderException failed) {
            metrics.query(client.channel(), OrderQueryMetrics.Asked.FAILED);
            answers.add(failed.getMessage());
            return null;
        }
    }

    private static String said(PaymentAnswer answer) {
        return answer instanceof PaymentAnswer.NotPaid notPaid ? notPaid.state() : "paid";
    }

    /** The alert for a query row given up on, by the schedule or by database failures. */
    @Override
    protected Uni<AfterCommit> alert(SqlClient transaction, OrderQueries.OrderQuery query, String reason) {
        return outbox.emit(transaction, new DownstreamEvent.Alert("query:" + query.id(),
                Subject.Trade.order(query.merchantId(), new OutTradeNo(query.outTradeNo())), reason)).map(Emitted::new);
    }
}
