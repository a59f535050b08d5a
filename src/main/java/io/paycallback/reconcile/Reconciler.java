package io.paycallback.reconcile;

import io.paycallback.config.PayCallbackConfig;
import io.paycallback.ledger.CallbackLedger;
import io.paycallback.ledger.Lease;
import io.paycallback.ledger.LeasedTable;
import io.paycallback.ledger.Leased;
import io.paycallback.ledger.Leases;
import io.paycallback.ledger.Origin;
import io.paycallback.ledger.Pickup;
import io.paycallback.ledger.Reservation;
import io.paycallback.order.OrderStatus;
import io.paycallback.order.Orders;
import io.paycallback.outbox.DownstreamEvent;
import io.paycallback.outbox.Emission;
import io.paycallback.outbox.Emitted;
import io.paycallback.outbox.Outbox;
import io.paycallback.provider.PaymentAnswer;
import io.paycallback.provider.ProviderClient;
import io.paycallback.provider.ProviderClients;
import io.paycallback.provider.ProviderException;
import io.paycallback.retry.AfterCommit;
import io.paycallback.retry.Attempted;
import io.paycallback.retry.LeaseHandler;
import io.quarkus.scheduler.Scheduled;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.SqlClient;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The active query: a PENDING order whose callback never came is asked about on {@code paycallback.reconcile.schedule}.
 * A paid answer is stored exactly like a callback (same unique key, so whichever of the two comes first is the one
 * fact, and the other is a duplicate) and goes through the same transition; the answer never changes an order itself.
 * Runs on a worker thread under the query row's lease, which it finishes, reschedules or buries itself.
 */
@ApplicationScoped
public class Reconciler implements LeaseHandler {

    private static final Logger LOG = Logger.getLogger(Reconciler.class);

    private final Pool pool;
    private final Leases leases;
    private final OrderQueries queries;
    private final Orders orders;
    private final CallbackLedger ledger;
    private final Outbox outbox;
    private final ProviderClients providers;
    private final QueryRateLimits limits;
    private final ReconcileMetrics metrics;
    private final PayCallbackConfig.Reconcile settings;
    private final Duration timeout;

    public Reconciler(Pool pool, Leases leases, OrderQueries queries, Orders orders, CallbackLedger ledger,
                      Outbox outbox, ProviderClients providers, QueryRateLimits limits, ReconcileMetrics metrics,
                      PayCallbackConfig config) {
        this.pool = pool;
        this.leases = leases;
        this.queries = queries;
        this.orders = orders;
        this.ledger = ledger;
        this.outbox = outbox;
        this.providers = providers;
        this.limits = limits;
        this.metrics = metrics;
        this.settings = config.reconcile();
        this.timeout = config.providers().timeout().multipliedBy(2);
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
    enum Result {
        /** The providers were asked and none has the order paid yet: the next query is scheduled. */
        QUERIED,
        /** A query found the order paid: the answer is stored like a callback and settles the order through it. */
        FOUND_PAID,
        /** The order was settled, or cannot be asked about, without a query. */
        NOT_NEEDED;

        String tag() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    @Override
    public LeasedTable table() {
        return LeasedTable.ORDER_QUERIES;
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
        OrderQueries.OrderQuery query = queries.find(pool, lease.id()).await().atMost(timeout);
        boolean pending = orders.find(pool, query.merchantId(), query.outTradeNo()).await().atMost(timeout)
                .map(order -> order.status() == OrderStatus.PENDING).orElse(false);
        List<ProviderClient> clients = providers.forMerchant(query.merchantId());
        if (!pending || clients.isEmpty()) {
            leases.finish(pool, lease).await().atMost(timeout);
            return Attempted.done(lease, Result.NOT_NEEDED.tag());
        }
        List<String> answers = new ArrayList<>();
        for (ProviderClient client : clients) {
            PaymentAnswer answer = ask(client, query, answers);
            if (answer instanceof PaymentAnswer.Paid paid) {
                Reservation stored = ledger.reserve(paid.payment(), paid.body(), Pickup.SCANNER, Origin.QUERY).await().atMost(timeout);
                metrics.foundPaid(client.channel(), stored instanceof Reservation.Reserved);
                leases.finish(pool, lease).await().atMost(timeout);
                LOG.warnf("Order %s of merchant %s found paid by a %s query: its callbacks were lost",
                        query.outTradeNo(), query.merchantId(), client.channel().path());
                return Attempted.done(lease, Result.FOUND_PAID.tag());
            }
        }
        String summary = String.join("; ", answers);
        int round = lease.failures();
        if (round < settings.schedule().size()) {
            leases.reschedule(pool, lease, settings.schedule().get(round), summary).await().atMost(timeout);
            return Attempted.done(lease, Result.QUERIED.tag());
        }
        String reason = "order still PENDING after " + (round + 1) + " queries: " + summary;
        List<Emission> alert = pool.withTransaction(tx -> leases.bury(tx, lease, reason)
                .chain(() -> alert(tx, query, reason))).await().atMost(timeout);
        return Attempted.dead(lease, reason, new Emitted(alert));
    }

    private PaymentAnswer ask(ProviderClient client, OrderQueries.OrderQuery query, List<String> answers) {
        if (!limits.acquire(client.channel(), query.merchantId())) {
            metrics.query(client.channel(), ReconcileMetrics.Result.RATE_LIMITED);
            answers.add(client.channel().path() + " rate limited");
            return null;
        }
        try {
            PaymentAnswer answer = client.queryPayment(query.merchantId(), query.outTradeNo()).await().atMost(timeout);
            if (answer instanceof PaymentAnswer.NotPaid notPaid) {
                metrics.query(client.channel(), ReconcileMetrics.Result.NOT_PAID);
                answers.add(client.channel().path() + " " + notPaid.state());
            } else {
                metrics.query(client.channel(), ReconcileMetrics.Result.PAID);
            }
            return answer;
        } catch (ProviderException failed) {
            metrics.query(client.channel(), ReconcileMetrics.Result.FAILED);
            answers.add(failed.getMessage());
            return null;
        }
    }

    /** The alert for a query row given up on, by the schedule or by database failures. */
    @Override
    public Uni<AfterCommit> giveUp(SqlClient transaction, Lease lease, String reason) {
        return queries.find(transaction, lease.id()).flatMap(query -> alert(transaction, query, "dead letter: " + reason))
                .map(Emitted::new);
    }

    private Uni<List<Emission>> alert(SqlClient transaction, OrderQueries.OrderQuery query, String reason) {
        return outbox.emit(transaction, DownstreamEvent.alert("query:" + query.id(), query.merchantId(),
                query.outTradeNo(), null, null, null, null, reason));
    }
}
