package io.paycallback.delivery;

import io.paycallback.config.PayCallbackConfig;
import io.paycallback.lease.AfterCommit;
import io.paycallback.lease.Attempted;
import io.paycallback.lease.Lease;
import io.paycallback.lease.LeaseHandler;
import io.paycallback.lease.LeaseLostException;
import io.paycallback.lease.Leased;
import io.paycallback.lease.LeasedTable;
import io.paycallback.lease.Leases;
import io.paycallback.lease.Tried;
import io.paycallback.outbox.DownstreamEvent;
import io.paycallback.outbox.Emission;
import io.paycallback.outbox.Emitted;
import io.paycallback.outbox.EventType;
import io.paycallback.outbox.Outbox;
import io.paycallback.outbox.PendingEvent;
import io.paycallback.outbox.Subject;
import io.paycallback.trade.OutTradeNo;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.impl.VertxInternal;
import io.vertx.mutiny.core.Vertx;
import io.vertx.mutiny.ext.web.client.WebClient;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executor;

/**
 * The outbox's {@link LeaseHandler}: delivers leased events, each a JSON POST with an Idempotency-Key that is the same
 * on every try, so a receiver that saw an earlier try can tell. A batch's events are sent concurrently, at most
 * {@code concurrency} at once per destination, each its own request; any 2xx is delivered, anything else fails that
 * event's try and the lease's backoff decides. Every HTTP try is recorded with the outcome it led to: a delivered one
 * on its event's row, by the one fenced finish of the batch's delivered rows; the others in {@code delivery_attempts}.
 */
@ApplicationScoped
public class OutboxRelay implements LeaseHandler {

    private static final Logger LOG = Logger.getLogger(OutboxRelay.class);

    static final String DELIVERED = "delivered";

    static final String LOAD = "SELECT id, source, type, destination, payload FROM outbox WHERE id IN (%s)";
    static final String LOAD_FOR_ALERT = "SELECT type, destination, merchant_id, out_trade_no FROM outbox WHERE id = ?";

    private final Pool pool;
    private final Leases leases;
    private final Outbox outbox;
    private final WebClient http;
    /**
     * Where the HTTP tries run: one event loop, which then also owns the client's connections. Sent from a worker
     * thread, every request and write was handed to the connection's event loop and met it on the connection's lock
     * (2 % of the service's CPU per paid order in deploy/bench's profile).
     */
    private final Executor onEventLoop;
    private final DeliveryAttempts attempts;
    private final DeliveryMetrics metrics;
    private final Map<String, PayCallbackConfig.Downstream.Destination> destinations;
    private final Duration leaseTime;

    public OutboxRelay(Pool pool, Leases leases, Outbox outbox, DeliveryAttempts attempts, DeliveryMetrics metrics,
                       Vertx vertx, PayCallbackConfig config) {
        this.pool = pool;
        this.leases = leases;
        this.outbox = outbox;
        this.attempts = attempts;
        this.metrics = metrics;
        this.http = WebClient.create(vertx);
        // A context of its own, never the caller's: the bean may be created on a request's event loop.
        io.vertx.core.Context context = ((VertxInternal) vertx.getDelegate()).createEventLoopContext();
        this.onEventLoop = task -> context.runOnContext(ignored -> task.run());
        this.destinations = config.downstream().destinations();
        this.leaseTime = config.retry().lease();
    }

    @PreDestroy
    void close() {
        http.close();
    }

    @Override
    public LeasedTable table() {
        return Outbox.TABLE;
    }

    @Override
    public boolean batches() {
        return true;
    }

    @Override
    public List<String> results() {
        return List.of(DELIVERED);
    }

    /** A try of an event: the row to send and, once sent, what came of it. */
    private record Delivery(Lease lease, PendingEvent event, DeliveryAttempt attempt) {
    }

    @Override
    public Attempted attempt(List<Leased> batch) {
        List<Tried> tried = new ArrayList<>();
        List<Delivery> toSend = new ArrayList<>();
        for (Map.Entry<Lease, Optional<PendingEvent>> row : events(batch).entrySet()) {
            Lease lease = row.getKey();
            if (row.getValue().isEmpty()) {
                // Housekeeping may have archived the row since it was leased: nothing is left to deliver.
                tried.add(new Tried.Lost(lease));
            } else if (Outbox.LOG_DESTINATION.equals(row.getValue().get().destination())) {
                tried.add(logAndFinish(lease, row.getValue().get()));
            } else {
                toSend.add(new Delivery(lease, row.getValue().get(), null));
            }
        }
        List<Delivery> sent = send(toSend).runSubscriptionOn(onEventLoop).await().atMost(leaseTime);
        List<Delivery> delivered = new ArrayList<>();
        for (Delivery delivery : sent) {
            metrics.record(delivery.attempt());
            if (delivery.attempt().delivered()) {
                delivered.add(delivery);
            } else {
                tried.add(new Tried.Failed(delivery.lease(), new DeliveryFailedException(delivery.attempt(), null)));
            }
        }
        tried.addAll(finish(delivered));
        return new Attempted(tried, AfterCommit.NOTHING);
    }

    /** The batch's rows, in its order: carried by their writer, else read with one statement; empty when gone. */
    private Map<Lease, Optional<PendingEvent>> events(List<Leased> batch) {
        Map<Lease, Optional<PendingEvent>> events = new LinkedHashMap<>();
        List<Long> toLoad = new ArrayList<>();
        for (Leased row : batch) {
            if (row instanceof Emission.ToDeliver carried) {
                events.put(row.lease(), Optional.of(carried.event()));
            } else {
                events.put(row.lease(), Optional.empty());
                toLoad.add(row.lease().id());
            }
        }
        if (toLoad.isEmpty()) {
            return events;
        }
        Tuple ids = Tuple.tuple();
        toLoad.forEach(ids::addLong);
        Map<Long, PendingEvent> loaded = new HashMap<>();
        pool.preparedQuery(LOAD.formatted(String.join(", ", Collections.nCopies(toLoad.size(), "?")))).execute(ids)
                .await().atMost(leaseTime)
                .forEach(row -> loaded.put(row.getLong("id"), new PendingEvent(row.getLong("id"), row.getString("source"),
                        row.getString("type"), row.getString("destination"), row.getString("payload"))));
        events.replaceAll((lease, event) -> event.isPresent() ? event : Optional.ofNullable(loaded.get(lease.id())));
        return events;
    }

    private Tried logAndFinish(Lease lease, PendingEvent event) {
        Emitted.log(event.idempotencyKey(), event.payload());
        try {
            leases.finish(pool, lease).await().atMost(leaseTime);
            return new Tried.Done(lease, DELIVERED);
        } catch (LeaseLostException lost) {
            return new Tried.Lost(lease);
        } catch (RuntimeException failure) {
            return new Tried.Failed(lease, failure);
        }
    }

    /** Every event's one HTTP try, concurrently, bounded per destination; never fails: what went wrong is in the attempt. */
    private Uni<List<Delivery>> send(List<Delivery> deliveries) {
        if (deliveries.isEmpty()) {
            return Uni.createFrom().item(List.of());
        }
        Map<String, List<Delivery>> byDestination = new LinkedHashMap<>();
        deliveries.forEach(delivery -> byDestination
                .computeIfAbsent(delivery.event().destination(), name -> new ArrayList<>()).add(delivery));
        List<Uni<List<Delivery>>> groups = new ArrayList<>();
        byDestination.forEach((name, group) -> {
            PayCallbackConfig.Downstream.Destination target = destinations.get(name);
            int concurrency = target == null ? 1 : Math.max(1, target.concurrency());
            groups.add(Multi.createFrom().iterable(group)
                    .onItem().transformToUni(delivery -> send(delivery.lease(), delivery.event(), target)
                            .map(attempt -> new Delivery(delivery.lease(), delivery.event(), attempt)))
                    .merge(concurrency)
                    .collect().asList());
        });
        return Uni.join().all(groups).andFailFast()
                .map(sent -> sent.stream().flatMap(List::stream).toList());
    }

    private Uni<DeliveryAttempt> send(Lease lease, PendingEvent event,
                                      PayCallbackConfig.Downstream.Destination target) {
        long started = System.nanoTime();
        if (target == null) {
            return Uni.createFrom().item(DeliveryAttempt.failed(lease, event.destination(),
                    "destination '" + event.destination() + "' is not configured", started));
        }
        return http.postAbs(target.url())
                .putHeader("Content-Type", "application/json")
                .putHeader("Idempotency-Key", event.idempotencyKey())
                .timeout(target.timeout().toMillis())
                .sendBuffer(io.vertx.mutiny.core.buffer.Buffer.newInstance(Buffer.buffer(event.payload())))
                .map(response -> DeliveryAttempt.answered(lease, event.destination(), response.statusCode(),
                        response.body() == null ? null : response.body().getBytes(), started))
                .onFailure().recoverWithItem(failure -> DeliveryAttempt.failed(lease, event.destination(),
                        failure.getClass().getSimpleName() + (failure.getMessage() == null ? "" : ": " + failure.getMessage()),
                        started));
    }

    /**
     * Marks the delivered rows done, each with its try, in one transaction; should any lease be gone, each row is
     * finished alone, so the others still are and the lost one's try is still recorded.
     */
    private List<Tried> finish(List<Delivery> delivered) {
        if (delivered.isEmpty()) {
            return List.of();
        }
        if (delivered.size() > 1) {
            Map<Lease, DeliveryAttempt> tries = new LinkedHashMap<>();
            delivered.forEach(delivery -> tries.put(delivery.lease(), delivery.attempt()));
            try {
                pool.withTransaction(tx -> attempts.finishDelivered(tx, tries)).await().atMost(leaseTime);
                return tries.keySet().stream().<Tried>map(lease -> new Tried.Done(lease, DELIVERED)).toList();
            } catch (RuntimeException failure) {
                LOG.debugf("Finishing %d delivered events together failed, each alone: %s", delivered.size(), failure.toString());
            }
        }
        List<Tried> tried = new ArrayList<>(delivered.size());
        for (Delivery delivery : delivered) {
            try {
                attempts.finishDelivered(delivery.lease(), delivery.attempt()).await().atMost(leaseTime);
                tried.add(new Tried.Done(delivery.lease(), DELIVERED));
            } catch (LeaseLostException lost) {
                tried.add(new Tried.Lost(delivery.lease()));
            } catch (RuntimeException failure) {
                tried.add(new Tried.Failed(delivery.lease(), new DeliveryFailedException(delivery.attempt(), failure)));
            }
        }
        return tried;
    }

    @Override
    public Uni<Void> recordFailure(SqlClient client, Lease lease, RuntimeException failure) {
        return failure instanceof DeliveryFailedException delivery
                ? attempts.record(client, delivery.attempt()) : Uni.createFrom().voidItem();
    }

    /**
     * The alert for an event that could not be delivered in all its tries. An alert that could not be delivered is
     * only logged: alerting about it through the same broken path would loop.
     */
    @Override
    public Uni<AfterCommit> giveUp(SqlClient transaction, Lease lease, String reason) {
        long id = lease.id();
        return transaction.preparedQuery(LOAD_FOR_ALERT).execute(Tuple.of(id)).flatMap(rows -> {
            var iterator = rows.iterator();
            if (!iterator.hasNext()) {
                return Uni.createFrom().item(AfterCommit.NOTHING);
            }
            Row row = iterator.next();
            if (EventType.ALERT.wire().equals(row.getString("type"))) {
                LOG.errorf("Alert outbox #%d to %s could not be delivered: %s", id, row.getString("destination"), reason);
                return Uni.createFrom().item(AfterCommit.NOTHING);
            }
            OutTradeNo outTradeNo = OutTradeNo.ofNullable(row.getString("out_trade_no"));
            return outbox.emitAll(transaction, List.of(new DownstreamEvent.Alert("outbox:" + id,
                    Subject.Trade.order(row.getString("merchant_id"), outTradeNo),
                    row.getString("type") + " to " + row.getString("destination") + " undeliverable: " + reason)))
                    .map(AfterCommit.class::cast);
        });
    }
}
