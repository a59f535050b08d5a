package io.paycallback.ops;

import io.paycallback.delivery.DeliveryAttempts;
import io.paycallback.delivery.RecordedAttempt;
import io.paycallback.lease.RowStatus;
import io.paycallback.outbox.EventType;
import io.paycallback.outbox.Outbox;
import io.paycallback.outbox.OutboxEvent;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.List;
import java.util.Optional;

/** Downstream events for an operator: one order's, or those in one status (the dead ones first of all), and each one's tries. */
@ApplicationScoped
public class EventActions {

    /**
     * Which events: with {@code outTradeNo}, every event of that order of {@code merchantId}; otherwise the events in
     * {@code status} (default dead), narrowed by any of merchant, type and destination. Null fields match everything.
     */
    public record Criteria(String outTradeNo, String merchantId, String status, String type, String destination) {
    }

    private final Outbox outbox;
    private final DeliveryAttempts attempts;
    private final Pool pool;

    public EventActions(Outbox outbox, DeliveryAttempts attempts, Pool pool) {
        this.outbox = outbox;
        this.attempts = attempts;
        this.pool = pool;
    }

    @OperatorAction.Performs(OperatorAction.EVENT_LIST)
    public Uni<ActionResult<List<OutboxEvent>>> list(Criteria criteria, int limit) {
        if (criteria.outTradeNo() != null) {
            return outbox.listForOrder(pool, OperatorDefaults.merchant(criteria.merchantId()), criteria.outTradeNo())
                    .map(events -> ActionResult.done(events, events.size() + " events"));
        }
        Optional<RowStatus> status = RowStatus.named(criteria.status() == null ? RowStatus.DEAD.label() : criteria.status());
        Optional<EventType> type = criteria.type() == null ? Optional.empty() : EventType.fromWire(criteria.type());
        if (status.isEmpty() || (criteria.type() != null && type.isEmpty()) || Limits.check(limit).isPresent()) {
            return Uni.createFrom().item(ActionResult.refused("status is pending|done|dead, type is one of "
                    + EventType.known() + ", limit is 1.." + Limits.MAX));
        }
        return outbox.list(pool, new Outbox.EventQuery(status.get(), criteria.merchantId(), type.orElse(null),
                        criteria.destination()), limit)
                .map(events -> ActionResult.done(events, events.size() + " events"));
    }

    /**
     * Every HTTP try of one event, oldest first: from the hot tables, else from the archives, where housekeeping moves
     * an event with its tries, as an order's timeline shows them.
     */
    @OperatorAction.Performs(OperatorAction.EVENT_ATTEMPTS)
    public Uni<ActionResult<List<RecordedAttempt>>> attempts(long eventId) {
        return attempts.list(eventId).flatMap(hot -> hot.isPresent()
                        ? Uni.createFrom().item(hot)
                        : attempts.listArchived(eventId))
                .map(found -> found
                        .map(list -> ActionResult.done(list, list.size() + " tries"))
                        .orElseGet(() -> ActionResult.notFound("no outbox event " + eventId)));
    }
}
