package io.paycallback.delivery;

import io.paycallback.db.LostRaces;
import io.paycallback.lease.AfterCommit;
import io.paycallback.lease.Attempted;
import io.paycallback.lease.Lanes;
import io.paycallback.lease.RowLease;
import io.paycallback.lease.LeaseConfig;
import io.paycallback.lease.LeaseHandler;
import io.paycallback.lease.LeaseLostException;
import io.paycallback.lease.LeasedRow;
import io.paycallback.lease.LeasedTable;
import io.paycallback.lease.LeaseStatements;
import io.paycallback.lease.RetryPolicy;
import io.paycallback.lease.Tried;
import io.paycallback.lease.Worker;
import io.paycallback.outbox.DownstreamEvent;
import io.paycallback.outbox.Emission;
import io.paycallback.outbox.Emitted;
import io.paycallback.outbox.EventType;
import io.paycallback.outbox.Outbox;
import io.paycallback.outbox.PendingEvent;
import io.paycallback.outbox.Subject;
import io.paycallback.trade.OutTradeNo;
import io.paycallback.tracing.Tracing;
import io.smallrye.mutiny.Uni;
import io.vertx.core.impl.VertxInternal;
import io.vertx.mutiny.core.Vertx;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * The outbox's {@link LeaseHandler}: delivers leased events, each a JSON POST with an Idempotency-Key that is the same
 * on every try, signed the Standard Webhooks way where its destination has a secret ({@link WebhookSigner}). Each
 * destination has a lane of its own ({@link DestinationLane}), and each try ends when its own answer arrives: a batch
 * hands its events to their lanes and frees its worker at once, so no destination's events ever wait for another
 * destination's requests. Delivered events are finished together, with whatever else was delivered meanwhile, in one
 * fenced statement per transaction; every other try is recorded in {@code delivery_attempts} by the transaction that
 * reschedules it. Failed tries follow the delivery schedule ({@code paycallback.downstream.retry}) and a Retry-After
 * (capped); a destination whose circuit is open or that is disabled gets nothing but probes, and its events are
 * parked without spending tries ({@link DestinationCircuits}).
 */
@ApplicationScoped
public class OutboxRelay implements LeaseHandler, DestinationLane.Outcomes {

    private static final Logger LOG = Logger.getLogger(OutboxRelay.class);

    static final String DELIVERED = "delivered";
    /** Not tried: its destination takes nothing now (circuit open, or disabled). */
    static final String PARKED = "parked";
    /** Not tried: this instance could not send it soon enough (a Retry-After pause, a full lane, the rate limit). */
    static final String DEFERRED = "deferred";

    static final String LOAD = """
            SELECT id, source, type, destination, merchant_id, out_trade_no, payload, traceparent, TIMESTAMPDIFF(MICROSECOND, created_at, NOW(3)) AS age_us
            FROM outbox WHERE id IN (%s)""";
    /** The outbox's lane column: each destination's events are leased apart (index (destination, status, next_retry_at)). */
    private static final String DESTINATION = "destination";
    static final String LOAD_FOR_ALERT = "SELECT type, destination, merchant_id, out_trade_no FROM outbox WHERE id = ?";


    private final Pool pool;
    private final LeaseStatements leases;
    private final Outbox outbox;
    private final DeliveryAttempts attempts;
    private final DeliveryMetrics metrics;
    private final DestinationCircuits circuits;
    private final ParkedEvents parked;
    private final Worker worker;
    private final LostRaces lostRaces;
    private final Map<String, DestinationLane> lanes = new HashMap<>();
    /**
     * Where the HTTP tries and their outcomes run: one event loop, which then also owns the clients' connections and
     * every lane's state. Sent from a worker thread, every request and write was handed to the connection's event loop
     * and met it on the connection's lock (2 % of the service's CPU per paid order in deploy/bench's profile).
     */
    private final Executor onEventLoop;
    private final RetryPolicy schedule;
    private final Duration leaseTime;
    private final int transactionSize;
    /** Finishes of delivered events that may run at once: one writes while the next batch gathers. */
    private static final int FINISHES = 2;

    /** Delivered events waiting for their finish, and the finishes running: both only touched on the event loop. */
    private final List<Finished> toFinish = new ArrayList<>();
    private int finishing;

    public OutboxRelay(Pool pool, LeaseStatements leases, Outbox outbox, DeliveryAttempts attempts, DeliveryMetrics metrics,
                       DestinationCircuits circuits, ParkedEvents parked, Destinations destinations, Worker worker,
                       LostRaces lostRaces, Vertx vertx, Clock clock, Tracing tracing, LeaseConfig config) {
        this.pool = pool;
        this.worker = worker;
        this.lostRaces = lostRaces;
        this.leases = leases;
        this.outbox = outbox;
        this.attempts = attempts;
        this.metrics = metrics;
        this.circuits = circuits;
        this.parked = parked;
        // A context of its own, never the caller's: the bean may be created on a request's event loop.
        io.vertx.core.Context context = ((VertxInternal) vertx.getDelegate()).createEventLoopContext();
        this.onEventLoop = task -> context.runOnContext(ignored -> task.run());
        this.schedule = destinations.schedule();
        this.leaseTime = config.lease();
        this.transactionSize = Math.max(1, config.transactionSize());
        for (Destinations.Destination destination : destinations.all()) {
            Transport transport = destination.endpoint() instanceof Destinations.Kafka kafka
                    ? new KafkaTransport(destination, kafka)
                    : new HttpTransport(destination, (Destinations.Http) destination.endpoint(), vertx, clock,
                    destinations.retryAfterCap());
            lanes.put(destination.name(), new DestinationLane(destination, transport, vertx, clock, circuits, metrics,
                    this, this::refill, leaseTime, config.scanInterval(), tracing));
        }
    }

    @PreDestroy
    void close() {
        lanes.values().forEach(DestinationLane::close);
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
        return List.of(DELIVERED, PARKED, DEFERRED);
    }

    @Override
    public Optional<RetryPolicy> retryPolicy() {
        return Optional.of(schedule);
    }

    /** One lane per configured destination, with the room its lane has now. */
    @Override
    public Optional<Lanes> lanes() {
        Map<String, Integer> room = new HashMap<>();
        lanes.forEach((name, lane) -> room.put(name, lane.room()));
        return Optional.of(new Lanes(DESTINATION, room));
    }

    @Override
    public void laneContested(String lane) {
        DestinationLane contested = lanes.get(lane);
        if (contested != null) {
            onEventLoop.execute(contested::askAgainLater);
        }
    }

    /**
     * A lane that drained leases its next due events: on a worker, then back on the event loop, a failed lease too (a
     * stage's failure would skip the executor of thenApplyAsync and reach the lane on the worker's thread).
     */
    private CompletionStage<Integer> refill(String destination, int limit) {
        CompletableFuture<Integer> onLoop = new CompletableFuture<>();
        worker.refill(Outbox.TABLE, new Lanes(DESTINATION, Map.of()), destination, limit)
                .whenComplete((leased, failure) -> onEventLoop.execute(() -> {
                    if (failure != null) {
                        onLoop.completeExceptionally(failure);
                    } else {
                        onLoop.complete(leased);
                    }
                }));
        return onLoop;
    }

    /** Every row's try, waiting for all of them; the lease engine itself uses {@link #start}. */
    @Override
    public Attempted attempt(List<LeasedRow> batch) {
        List<Attempted> parts = Collections.synchronizedList(new ArrayList<>());
        CompletableFuture<Void> settled = new CompletableFuture<>();
        AtomicInteger open = new AtomicInteger(batch.size());
        start(batch, part -> {
            parts.add(part);
            if (open.addAndGet(-part.rows().size()) <= 0) {
                settled.complete(null);
            }
        });
        try {
            settled.get(leaseTime.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException | ExecutionException e) {
            throw new IllegalStateException("the batch's tries did not end within " + leaseTime, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while the batch's tries ran", e);
        }
        return Attempted.all(List.copyOf(parts));
    }

    /**
     * Reads what must be read (on the calling worker thread), finishes the log destination's rows, and hands every
     * other event to its destination's lane; returns without waiting for any answer.
     */
    @Override
    public void start(List<LeasedRow> batch, Consumer<Attempted> settle) {
        List<Tried> now = new ArrayList<>();
        Map<DestinationLane, List<Delivery>> byLane = new LinkedHashMap<>();
        long held = System.nanoTime();
        for (Map.Entry<RowLease, Optional<PendingEvent>> row : events(batch).entrySet()) {
            RowLease lease = row.getKey();
            if (row.getValue().isEmpty()) {
                // Housekeeping may have archived the row since it was leased: nothing is left to deliver.
                now.add(new Tried.Lost(lease));
                continue;
            }
            PendingEvent event = row.getValue().get();
            DestinationLane lane = lanes.get(event.destination());
            if (Outbox.LOG_DESTINATION.equals(event.destination())) {
                now.add(logAndFinish(lease, event));
            } else if (lane == null) {
                DeliveryAttempt attempt = DeliveryAttempt.failed(lease, event.destination(),
                        "destination '" + event.destination() + "' is not configured", held);
                metrics.record(attempt);
                now.add(new Tried.Failed(lease, new DeliveryFailedException(attempt, null)));
            } else {
                byLane.computeIfAbsent(lane, any -> new ArrayList<>()).add(new Delivery(lease, event, settle, held));
            }
        }
        if (!now.isEmpty()) {
            settle.accept(new Attempted(now, AfterCommit.NOTHING));
        }
        boolean due = batch.stream().anyMatch(row -> !(row instanceof Emission.ToDeliver));
        byLane.forEach((lane, deliveries) -> onEventLoop.execute(() -> lane.offer(deliveries, due)));
    }

    /** The batch's rows, in its order: carried by their writer, else read with one statement; empty when gone. */
    private Map<RowLease, Optional<PendingEvent>> events(List<LeasedRow> batch) {
        Map<RowLease, Optional<PendingEvent>> events = new LinkedHashMap<>();
        List<Long> toLoad = new ArrayList<>();
        for (LeasedRow row : batch) {
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
                .forEach(row -> loaded.put(row.getLong("id"), PendingEvent.of(row)));
        events.replaceAll((lease, event) -> event.isPresent() ? event : Optional.ofNullable(loaded.get(lease.id())));
        return events;
    }

    private Tried logAndFinish(RowLease lease, PendingEvent event) {
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

    // ---- outcomes, on the event loop -------------------------------------------------------------------------------

    private record Finished(Delivery delivery, DeliveryAttempt attempt) {
    }

    /**
     * Delivered: finished with whatever else was delivered meanwhile, so a finish is one statement for many events
     * under load and no wait at all when idle.
     */
    @Override
    public void delivered(Delivery delivery, DeliveryAttempt attempt) {
        toFinish.add(new Finished(delivery, attempt));
        if (finishing < FINISHES) {
            finishNext();
        }
    }

    private void finishNext() {
        if (toFinish.isEmpty()) {
            return;
        }
        finishing++;
        List<Finished> batch = new ArrayList<>(toFinish.subList(0, Math.min(transactionSize, toFinish.size())));
        toFinish.subList(0, batch.size()).clear();
        finish(batch).emitOn(onEventLoop).subscribe().with(tried -> {
            finishing--;
            settle(tried);
            finishNext();
        });
    }

    /**
     * Marks the delivered rows done, each with its try, in one transaction; should any lease be gone, each row is
     * finished alone, so the others still are and the lost one's try is still recorded. Never fails.
     */
    private Uni<Map<Delivery, Tried>> finish(List<Finished> delivered) {
        Uni<Map<Delivery, Tried>> alone = each(delivered);
        if (delivered.size() == 1) {
            return alone;
        }
        Map<RowLease, DeliveryAttempt> tries = new LinkedHashMap<>();
        delivered.forEach(done -> tries.put(done.delivery().lease(), done.attempt()));
        // A deadlock with a lease of the same index range is a race: run again, not a failed try sent again later.
        return lostRaces.retried(pool.withTransaction(tx -> attempts.finishDelivered(tx, tries)), LostRaces.At.TRANSACTION)
                .map(ignored -> {
                    Map<Delivery, Tried> tried = new LinkedHashMap<>();
                    delivered.forEach(done -> tried.put(done.delivery(), new Tried.Done(done.delivery().lease(), DELIVERED)));
                    return tried;
                })
                .onFailure().recoverWithUni(failure -> {
                    LOG.debugf("Finishing %d delivered events together failed, each alone: %s", delivered.size(),
                            failure.toString());
                    return alone;
                });
    }

    private Uni<Map<Delivery, Tried>> each(List<Finished> delivered) {
        Map<Delivery, Tried> tried = new LinkedHashMap<>();
        Uni<Void> all = Uni.createFrom().voidItem();
        for (Finished done : delivered) {
            RowLease lease = done.delivery().lease();
            all = all.chain(() -> lostRaces.retried(attempts.finishDelivered(lease, done.attempt()), LostRaces.At.TRANSACTION)
                    .map(ignored -> (Tried) new Tried.Done(lease, DELIVERED))
                    .onFailure(LeaseLostException.class).recoverWithItem(new Tried.Lost(lease))
                    .onFailure().recoverWithItem(failure -> new Tried.Failed(lease,
                            new DeliveryFailedException(done.attempt(), failure)))
                    .invoke(outcome -> tried.put(done.delivery(), outcome))
                    .replaceWithVoid());
        }
        return all.map(ignored -> tried);
    }

    @Override
    public void failed(Delivery delivery, DeliveryAttempt attempt, Duration notBefore) {
        delivery.settle().accept(new Attempted(List.of(new Tried.Failed(delivery.lease(),
                new DeliveryFailedException(attempt, null), notBefore)), AfterCommit.NOTHING));
    }

    /** 410 Gone: the destination is disabled for every instance; this event and what the lane holds are parked. */
    @Override
    public void gone(DestinationLane lane, Delivery delivery, DeliveryAttempt attempt) {
        circuits.gone(lane.name(), "answered 410 Gone to " + delivery.event().idempotencyKey())
                .subscribe().with(changed -> { }, failure -> LOG.warnf("Destination %s answered 410 Gone, and "
                        + "disabling it failed: %s", lane.name(), failure.toString()));
        List<Delivery> held = new ArrayList<>(List.of(delivery));
        held.addAll(lane.drain());
        hold(held, List.of(attempt), parked::park, PARKED);
    }

    @Override
    public void park(List<Delivery> deliveries) {
        hold(deliveries, List.of(), parked::park, PARKED);
    }

    @Override
    public void defer(List<Delivery> deliveries, Duration delay) {
        hold(deliveries, List.of(), (tx, held) -> parked.defer(tx, held, delay), DEFERRED);
    }

    private interface Hold {
        Uni<Void> apply(SqlClient transaction, List<RowLease> held);
    }

    /**
     * Gives events back without counting a try, with the attempts that were made of them, in transactions of at most
     * {@code transaction-size} rows (a deadlock with a lease of the same range is run again), and then settles them.
     * Should one fail, its rows keep their leases until those run out, and are tried (or parked) then.
     */
    private void hold(List<Delivery> deliveries, List<DeliveryAttempt> tried, Hold hold, String result) {
        for (int from = 0; from < deliveries.size(); from += transactionSize) {
            List<Delivery> part = deliveries.subList(from, Math.min(deliveries.size(), from + transactionSize));
            List<DeliveryAttempt> made = from == 0 ? tried : List.of();
            lostRaces.retried(pool.withTransaction(tx -> {
                Uni<Void> recorded = Uni.createFrom().voidItem();
                for (DeliveryAttempt attempt : made) {
                    recorded = recorded.chain(() -> attempts.record(tx, attempt));
                }
                return recorded.chain(() -> hold.apply(tx, leases(part)));
            }), LostRaces.At.TRANSACTION).onFailure().invoke(failure -> LOG.warnf(
                    "Could not give %d events back, their leases run out: %s", part.size(), failure.toString()))
                    .onFailure().recoverWithNull().subscribe().with(done -> {
                        Map<Delivery, Tried> outcomes = new LinkedHashMap<>();
                        part.forEach(delivery -> outcomes.put(delivery, new Tried.Deferred(delivery.lease(), result)));
                        settle(outcomes);
                    });
        }
    }

    private static List<RowLease> leases(List<Delivery> deliveries) {
        return deliveries.stream().map(Delivery::lease).toList();
    }

    /** Hands each batch's outcomes to that batch's bookkeeping. */
    private static void settle(Map<Delivery, Tried> outcomes) {
        Map<Consumer<Attempted>, List<Tried>> byBatch = new IdentityHashMap<>();
        outcomes.forEach((delivery, tried) -> byBatch.computeIfAbsent(delivery.settle(), any -> new ArrayList<>()).add(tried));
        byBatch.forEach((settle, tried) -> settle.accept(new Attempted(tried, AfterCommit.NOTHING)));
    }

    // ---- probes ----------------------------------------------------------------------------------------------------

    /** What a probe came to. */
    public sealed interface ProbeOutcome {
        /** The probe was delivered: the circuit is closed and the destination's events are due. */
        record Delivered(DeliveryAttempt attempt) implements ProbeOutcome {
        }

        /** The probe failed: the circuit stays as it was (or the destination was disabled). */
        record Failed(DeliveryAttempt attempt) implements ProbeOutcome {
        }

        /** The circuit waits for a probe, and none of its events is parked to be one. */
        record NothingWaiting() implements ProbeOutcome {
        }

        /** No probe now: the circuit is closed, not due, or another instance is probing it. */
        record NotNow() implements ProbeOutcome {
        }
    }

    /**
     * Sends the destination's oldest parked event as its probe, if one is due ({@code now}: an operator's, at once):
     * delivered, the circuit closes; failed, the event is parked again without counting a try.
     */
    public Uni<ProbeOutcome> probe(String destination, boolean now) {
        DestinationLane lane = lanes.get(destination);
        if (lane == null) {
            return Uni.createFrom().item(new ProbeOutcome.NotNow());
        }
        return circuits.claimProbe(destination, now).flatMap(claimed -> claimed.isEmpty()
                ? Uni.createFrom().item((ProbeOutcome) new ProbeOutcome.NotNow())
                : parked.leaseOldest(destination, leaseTime).flatMap(probe -> probe.isEmpty()
                        ? circuits.probeSkipped(destination, claimed.get()).replaceWith(new ProbeOutcome.NothingWaiting())
                        : probe(lane, probe.get(), claimed.get())));
    }

    private Uni<ProbeOutcome> probe(DestinationLane lane, ParkedEvents.Probe probe, DestinationState claimed) {
        String destination = lane.name();
        Uni<DeliveryAttempt> sent = Uni.createFrom().emitter(answer -> onEventLoop.execute(() ->
                lane.send(probe.lease(), probe.event(), (attempt, retryAfter) -> answer.complete(attempt))));
        return sent.flatMap(attempt -> {
            if (attempt.delivered()) {
                return attempts.finishDelivered(probe.lease(), attempt)
                        .onFailure(LeaseLostException.class).recoverWithNull()
                        .chain(() -> circuits.probeDelivered(destination, claimed))
                        .replaceWith(new ProbeOutcome.Delivered(attempt));
            }
            Uni<Void> parkedAgain = pool.withTransaction(tx -> attempts.record(tx, attempt)
                    .chain(() -> parked.park(tx, List.of(probe.lease()))));
            Uni<?> decided = attempt.httpStatus() != null && attempt.httpStatus() == 410
                    ? circuits.gone(destination, "answered 410 Gone to a probe")
                    : circuits.probeFailed(destination, claimed, attempt.describe());
            return parkedAgain.chain(() -> decided).replaceWith(new ProbeOutcome.Failed(attempt));
        });
    }

    // ---- the lease engine's side -----------------------------------------------------------------------------------

    @Override
    public Uni<Void> recordFailure(SqlClient client, RowLease lease, RuntimeException failure) {
        return failure instanceof DeliveryFailedException delivery
                ? attempts.record(client, delivery.attempt()) : Uni.createFrom().voidItem();
    }

    /**
     * The alert for an event that could not be delivered in all its tries. An alert that could not be delivered is
     * only logged: alerting about it through the same broken path would loop.
     */
    @Override
    public Uni<AfterCommit> giveUp(SqlClient transaction, RowLease lease, String reason) {
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
