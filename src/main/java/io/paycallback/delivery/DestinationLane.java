package io.paycallback.delivery;

import io.github.resilience4j.ratelimiter.RateLimiter;
import io.github.resilience4j.ratelimiter.RateLimiterConfig;
import io.paycallback.lease.RowLease;
import io.paycallback.outbox.PendingEvent;
import io.paycallback.tracing.SpanAttribute;
import io.paycallback.tracing.SpanName;
import io.paycallback.tracing.Traced;
import io.paycallback.tracing.Tracing;
import io.vertx.mutiny.core.Vertx;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One destination's deliveries on this instance, confined to the relay's event loop (no locks): at most its current
 * limit of requests in flight, the rest queued here. Each try ends on its own answer; no other destination's try ever
 * waits for it. A throttling answer (429, 502, 503, 504) halves the limit, each delivered try gives one back up to the
 * configured concurrency, and a Retry-After pauses the destination here until then; events it holds that could not be
 * sent well within their lease go back for a later try without counting one. While its circuit is not closed nothing
 * is sent but the probes, and what it holds is parked. It holds at most {@link #room()} more events from scans, and
 * when it has drained to half of that it leases its next due events itself, so a backlog flows at the destination's
 * own pace, whatever the others do.
 */
final class DestinationLane {

    /** Answers that say the destination is overloaded: it gets fewer requests at once. */
    private static final Set<Integer> THROTTLING = Set.of(429, 502, 503, 504);
    private static final int GONE = 410;
    /** The first wait after a refill that found nothing; it doubles up to a scan interval. */
    private static final long FIRST_QUIET_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    /** What came of one try, as the lane hands it back. */
    interface Outcomes {
        void delivered(Delivery delivery, DeliveryAttempt attempt);

        void failed(Delivery delivery, DeliveryAttempt attempt, Duration notBefore);

        void gone(DestinationLane lane, Delivery delivery, DeliveryAttempt attempt);

        void park(List<Delivery> deliveries);

        void defer(List<Delivery> deliveries, Duration delay);
    }

    /** Leases up to {@code limit} more due events of the lane; completes with how many (0: none due). */
    interface Refill {
        CompletionStage<Integer> lease(String destination, int limit);
    }

    /** How one request ended. */
    interface Answered {
        void answered(DeliveryAttempt attempt, Optional<Duration> retryAfter);
    }

    private final Destinations.Destination destination;
    private final Transport transport;
    private final Tracing tracing;
    private final Vertx vertx;
    private final Clock clock;
    private final DestinationCircuits circuits;
    private final DeliveryMetrics metrics;
    private final Outcomes outcomes;
    private final RateLimiter limiter;
    private final long longestHoldNanos;
    private final ArrayDeque<Delivery> queue = new ArrayDeque<>();
    private final Refill refill;
    private final int capacity;
    private final long quietNanos;
    /** Events in the lane, queued or in flight; read by the scanner's thread for the room. */
    private final AtomicInteger held = new AtomicInteger();
    private int limit;
    private int inFlight;
    private Instant pausedUntil = Instant.MIN;
    private boolean refilling;
    private long quiet = FIRST_QUIET_NANOS / 2;
    /** On {@link #clock}, in nanoseconds: until then a drained lane does not lease by itself. */
    private long quietUntil;

    DestinationLane(Destinations.Destination destination, Transport transport, Vertx vertx, Clock clock,
                    DestinationCircuits circuits, DeliveryMetrics metrics, Outcomes outcomes, Refill refill,
                    Duration leaseTime, Duration scanInterval, Tracing tracing) {
        this.destination = destination;
        this.tracing = tracing;
        this.refill = refill;
        // Enough to keep its requests busy between refills, little enough to hold in memory and send within a lease.
        this.capacity = destination.concurrency() * 32;
        this.quietNanos = scanInterval.toNanos();
        this.quietUntil = now(clock);
        this.transport = transport;
        this.vertx = vertx;
        this.clock = clock;
        this.circuits = circuits;
        this.metrics = metrics;
        this.outcomes = outcomes;
        this.limit = destination.concurrency();
        // Sent only while enough of the lease is left for the try and its outcome: a row held longer goes back rather
        // than be sent after another instance may have leased it again.
        long leaseNanos = leaseTime.toNanos();
        this.longestHoldNanos = Math.max(leaseNanos / 4, leaseNanos - 2 * destination.timeout().toNanos());
        this.limiter = destination.rateLimit().isPresent() ? limiter(destination, Duration.ofNanos(longestHoldNanos)) : null;
    }

    private static RateLimiter limiter(Destinations.Destination destination, Duration longestWait) {
        double perSecond = destination.rateLimit().getAsDouble();
        // Below one a second, one event per period of 1/rate seconds.
        int permits = perSecond >= 1 ? (int) Math.round(perSecond) : 1;
        Duration period = perSecond >= 1 ? Duration.ofSeconds(1) : Duration.ofNanos(Math.round(1e9 / perSecond));
        return RateLimiter.of("destination-" + destination.name(), RateLimiterConfig.custom()
                .limitForPeriod(permits).limitRefreshPeriod(period).timeoutDuration(longestWait).build());
    }

    String name() {
        return destination.name();
    }

    /** How many more events a scan may lease for it now; safe from any thread. */
    int room() {
        return Math.max(0, capacity - held.get());
    }

    /**
     * Takes leased events of this destination to send; on the relay's event loop.
     *
     * @param due whether they were leased as due rows (a scan's lease or the lane's own) rather than handed over by
     *            their writer. Due rows of the lane were found, so the quiet wait of an earlier refill that found none
     *            ends: a lane that drains while it waits has no answer left to wake it, and would sit idle beside the
     *            rest of the backlog until the next scan.
     */
    void offer(List<Delivery> deliveries, boolean due) {
        held.addAndGet(deliveries.size());
        queue.addAll(deliveries);
        if (due) {
            endQuiet();
        }
        pump();
    }

    /** Starts what may start now: nothing while the circuit is not closed or the destination asked for a pause. */
    private void pump() {
        if (!circuits.state(destination.name()).delivers()) {
            if (!queue.isEmpty()) {
                outcomes.park(takeAll());
            }
            return;
        }
        Instant now = clock.instant();
        if (now.isBefore(pausedUntil)) {
            if (!queue.isEmpty()) {
                outcomes.defer(takeAll(), Duration.between(now, pausedUntil));
            }
            return;
        }
        List<Delivery> late = new ArrayList<>();
        while (inFlight < limit && !queue.isEmpty()) {
            Delivery next = queue.poll();
            if (System.nanoTime() - next.heldSince() > longestHoldNanos) {
                late.add(next);
                continue;
            }
            long waitNanos = limiter == null ? 0 : limiter.reservePermission();
            if (waitNanos < 0) {
                late.add(next);
                continue;
            }
            inFlight++;
            if (waitNanos == 0) {
                send(next);
            } else {
                vertx.setTimer(Math.max(1, TimeUnit.NANOSECONDS.toMillis(waitNanos)), timer -> send(next));
            }
        }
        if (!late.isEmpty()) {
            held.addAndGet(-late.size());
            outcomes.defer(late, Duration.ofSeconds(1));
        }
        refillIfDrained();
    }

    /**
     * Half drained, the lane leases its next due events itself, up to its room, while it still sends the other half,
     * instead of waiting for the next scan. When it finds none it waits before it asks again, twice as long each time
     * up to a scan interval: a lease that lost a race with a scan's finds none though the backlog goes on, and the scan
     * that won hands its rows to the lane.
     */
    private void refillIfDrained() {
        if (refilling || held.get() > capacity / 2 || now(clock) - quietUntil < 0) {
            return;
        }
        refilling = true;
        refill.lease(destination.name(), room()).whenComplete((leased, failure) -> {
            refilling = false;
            if (failure != null) {
                askAgainLater();
            } else if (leased > 0) {
                endQuiet();
            } else {
                waitQuiet();
            }
        });
    }

    /**
     * A lease of its rows failed, its own or a scan's (a deadlock lost every time it was tried, or no worker free): the
     * lane asks again by itself after the usual wait. Emptied, it has no answer left to wake it, and would otherwise
     * sit idle beside a backlog of its own until the next scan. On the relay's event loop.
     */
    void askAgainLater() {
        waitQuiet();
        vertx.setTimer(TimeUnit.NANOSECONDS.toMillis(quiet) + 1, timer -> pump());
    }

    private void endQuiet() {
        quiet = FIRST_QUIET_NANOS / 2;
        quietUntil = now(clock);
    }

    private void waitQuiet() {
        quiet = Math.min(quietNanos, quiet * 2);
        quietUntil = now(clock) + quiet;
    }

    private static long now(Clock clock) {
        return TimeUnit.MILLISECONDS.toNanos(clock.millis());
    }

    private List<Delivery> takeAll() {
        List<Delivery> all = new ArrayList<>(queue);
        queue.clear();
        held.addAndGet(-all.size());
        return all;
    }

    private void send(Delivery delivery) {
        send(delivery.lease(), delivery.event(), (attempt, retryAfter) -> {
            inFlight--;
            held.decrementAndGet();
            if (attempt.delivered()) {
                limit = Math.min(destination.concurrency(), limit + 1);
                circuits.tried(destination.name(), false, null);
                metrics.deliveredAfter(destination.name(), delivery.event().ageMillis());
                outcomes.delivered(delivery, attempt);
            } else if (attempt.httpStatus() != null && attempt.httpStatus() == GONE) {
                outcomes.gone(this, delivery, attempt);
            } else {
                if (attempt.httpStatus() != null && THROTTLING.contains(attempt.httpStatus())) {
                    limit = Math.max(1, limit / 2);
                }
                retryAfter.ifPresent(wait -> pausedUntil = clock.instant().plus(wait));
                circuits.tried(destination.name(), true, attempt.describe());
                outcomes.failed(delivery, attempt, retryAfter.orElse(Duration.ZERO));
            }
            pump();
        });
    }

    /** Lets go of the transport's connections and threads at shutdown. */
    void close() {
        transport.close();
    }

    /** What the lane still holds, parked: its destination was disabled (it answered 410). */
    List<Delivery> drain() {
        return takeAll();
    }

    /**
     * One try of the event, whatever the circuit says (a probe's, or one the lane started); {@code answered} runs on
     * the event loop with its attempt and the Retry-After the answer carried (capped).
     */
    void send(RowLease lease, PendingEvent event, Answered answered) {
        byte[] body = event.payload().getBytes(StandardCharsets.UTF_8);
        String key = event.idempotencyKey();
        // The try's span continues the trace of what wrote the event, and the destination continues the try's.
        Traced span = tracing.startFrom(SpanName.DELIVERY, event.traceparent())
                .set(SpanAttribute.DESTINATION, destination.name())
                .set(SpanAttribute.EVENT_TYPE, event.type())
                .set(SpanAttribute.EVENT_ID, key)
                .set(SpanAttribute.TRY, lease.failures() + 1L);
        Instant at = clock.instant();
        Optional<WebhookSigner.Headers> signed = destination.signer().map(signer -> signer.sign(key, body, at));
        transport.send(new Transport.Outgoing(lease, event, body, span.traceparent().or(event::traceparent), signed, at),
                span, (attempt, retryAfter) -> ended(answered, span, attempt, retryAfter));
    }

    /** The outcome runs inside the try's span, so what it logs carries the event's trace id. */
    private void ended(Answered answered, Traced span, DeliveryAttempt attempt, Optional<Duration> retryAfter) {
        metrics.record(attempt);
        span.set(SpanAttribute.OUTCOME, attempt.result().label());
        if (!attempt.delivered()) {
            span.failed(attempt.result().label());
        }
        try (Traced.Current ignored = span.makeCurrent()) {
            answered.answered(attempt, retryAfter);
        } finally {
            span.end();
        }
    }
}
