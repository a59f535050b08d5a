package io.paycallback.ops;

import io.paycallback.closing.CloseRequests;
import io.paycallback.delivery.DeliveryAttempts;
import io.paycallback.delivery.RecordedAttempt;
import io.paycallback.inbox.CallbackTable;
import io.paycallback.inbox.CallbackRow;
import io.paycallback.inbox.CallbackRows;
import io.paycallback.lease.RowStatus;
import io.paycallback.order.Order;
import io.paycallback.order.OrderStatus;
import io.paycallback.order.Orders;
import io.paycallback.order.Refunds;
import io.paycallback.outbox.Outbox;
import io.paycallback.outbox.OutboxEvent;
import io.paycallback.providercall.ProviderCalls;
import io.paycallback.trade.ChannelId;
import io.paycallback.trade.OutTradeNo;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.ToLongFunction;

/**
 * "What happened to order X": finds the order by any of its numbers and reads its story from the repositories that
 * own each part (orders, both callback logs, refunds, outbox, delivery attempts), from the hot tables and from the
 * archives housekeeping moves rows to past the retention, so an order from months ago still has its callbacks and
 * events. Archived rows are marked as such and listed among the live ones by id, which a row keeps when it moves.
 * <p>
 * Each part reads its hot table first and its archive after: a row that housekeeping moves between the two reads is
 * then read twice, never missed, and its archived copy is the one shown.
 */
@ApplicationScoped
public class OrderTimeline {

    /**
     * An order's whole story, archived rows among the live ones; {@code order} is null when no order has this number
     * (callbacks may still exist).
     */
    public record Timeline(String merchantId, String outTradeNo, Order order, List<Change> changes,
                           List<Callback> callbacks, List<Refunds.Listed> refunds, List<Event> events) {
    }

    /** One state change of the order, read off its timestamps, its refunds, its close and its provider calls. */
    public record Change(LocalDateTime at, String what) {
    }

    /** @param archived whether housekeeping moved it to the archive, where nothing acts on it any more */
    public record Callback(CallbackRow row, boolean archived) {
    }

    /** An event with every HTTP try of it, oldest first. */
    public record Event(OutboxEvent event, List<RecordedAttempt> attempts, boolean archived) {
    }

    /** Which number an operator searched by. */
    public enum SearchBy {
        ORDER, TRADE, REFUND;

        public static Optional<SearchBy> named(String name) {
            for (SearchBy by : values()) {
                if (by.name().equalsIgnoreCase(name)) {
                    return Optional.of(by);
                }
            }
            return Optional.empty();
        }
    }

    private final Pool pool;
    private final Orders orders;
    private final Refunds refunds;
    private final CallbackRows callbacks;
    private final Outbox outbox;
    private final DeliveryAttempts attempts;
    private final CloseRequests closeRequests;
    private final ProviderCalls providerCalls;

    public OrderTimeline(Pool pool, Orders orders, Refunds refunds, CallbackRows callbacks, Outbox outbox,
                         DeliveryAttempts attempts, CloseRequests closeRequests, ProviderCalls providerCalls) {
        this.closeRequests = closeRequests;
        this.providerCalls = providerCalls;
        this.pool = pool;
        this.orders = orders;
        this.refunds = refunds;
        this.callbacks = callbacks;
        this.outbox = outbox;
        this.attempts = attempts;
    }

    /** The out_trade_no(s) a number leads to, in the merchant's records; a provider's number may lead to none. */
    public Uni<List<String>> find(SearchBy by, String merchantId, String number) {
        if (by == SearchBy.ORDER) {
            return Uni.createFrom().item(List.of(number));
        }
        List<Uni<Optional<String>>> lookups = new ArrayList<>();
        for (ChannelId channel : ChannelId.values()) {
            if (by == SearchBy.TRADE) {
                lookups.add(callbacks.orderOf(CallbackTable.PAYMENT, merchantId, channel, number));
            } else {
                lookups.add(callbacks.orderOf(CallbackTable.REFUND, merchantId, channel, number));
                lookups.add(refunds.findRequest(pool, merchantId, channel.path(), number)
                        .map(found -> found.map(Refunds.Request::outTradeNo).map(OutTradeNo::value)));
            }
        }
        return Uni.join().all(lookups).andFailFast().map(found -> {
            Set<String> orderNumbers = new LinkedHashSet<>();
            found.forEach(one -> one.ifPresent(orderNumbers::add));
            return List.copyOf(orderNumbers);
        });
    }

    public Uni<Timeline> read(String merchantId, String outTradeNo) {
        Uni<Optional<Order>> order = orders.find(pool, merchantId, outTradeNo);
        Uni<Optional<Orders.Dates>> dates = orders.dates(pool, merchantId, outTradeNo);
        Uni<List<Callback>> payments = callbackLines(CallbackTable.PAYMENT, merchantId, outTradeNo);
        Uni<List<Callback>> refundCallbacks = callbackLines(CallbackTable.REFUND, merchantId, outTradeNo);
        Uni<List<Refunds.Listed>> refundRows = refunds.forOrder(pool, merchantId, outTradeNo);
        Uni<List<Event>> events = outbox.listForOrder(pool, merchantId, outTradeNo)
                .flatMap(this::withAttempts)
                .flatMap(live -> outbox.listArchivedForOrder(pool, merchantId, outTradeNo)
                        .flatMap(this::withArchivedAttempts)
                        .map(archived -> byId(live, archived, line -> line.event().id())));
        Uni<Optional<CloseRequests.Listed>> close = closeRequests.forOrder(pool, merchantId, outTradeNo);
        Uni<List<ProviderCalls.Listed>> calls = providerCalls.forOrder(pool, merchantId, outTradeNo);
        return Uni.combine().all().unis(order, dates, payments, refundCallbacks, refundRows, events, close, calls)
                .with((found, when, paid, refunded, refundList, eventLines, closing, asked) -> {
                    List<Callback> lines = new ArrayList<>(paid);
                    lines.addAll(refunded);
                    return new Timeline(merchantId, outTradeNo, found.orElse(null),
                            changes(found, when, refundList, closing, asked), lines, refundList, eventLines);
                });
    }

    private Uni<List<Callback>> callbackLines(CallbackTable log, String merchantId, String outTradeNo) {
        return callbacks.forOrder(log, merchantId, outTradeNo).flatMap(live ->
                callbacks.archivedForOrder(log, merchantId, outTradeNo).map(archived -> byId(
                        live.stream().map(row -> new Callback(row, false)).toList(),
                        archived.stream().map(row -> new Callback(row, true)).toList(),
                        line -> line.row().id())));
    }

    private Uni<List<Event>> withAttempts(List<OutboxEvent> events) {
        if (events.isEmpty()) {
            return Uni.createFrom().item(List.of());
        }
        return Multi.createFrom().iterable(events)
                .onItem().transformToUniAndConcatenate(event -> attempts.list(event.id())
                        .map(found -> new Event(event, found.orElse(List.of()), false)))
                .collect().asList();
    }

    private Uni<List<Event>> withArchivedAttempts(List<OutboxEvent> events) {
        if (events.isEmpty()) {
            return Uni.createFrom().item(List.of());
        }
        return Multi.createFrom().iterable(events)
                .onItem().transformToUniAndConcatenate(event -> attempts.listArchived(event.id())
                        .map(found -> new Event(event, found.orElse(List.of()), true)))
                .collect().asList();
    }

    /** Live and archived lines in id order, the archived copy of a row read from both places taking its place. */
    private static <T> List<T> byId(List<T> live, List<T> archived, ToLongFunction<T> id) {
        Map<Long, T> lines = new TreeMap<>();
        live.forEach(line -> lines.put(id.applyAsLong(line), line));
        archived.forEach(line -> lines.put(id.applyAsLong(line), line));
        return List.copyOf(lines.values());
    }

    /** The order's state changes as its columns and its refunds record them, oldest first. */
    private static List<Change> changes(Optional<Order> order, Optional<Orders.Dates> dates,
                                                     List<Refunds.Listed> refundList,
                                                     Optional<CloseRequests.Listed> close,
                                                     List<ProviderCalls.Listed> calls) {
        List<Change> changes = new ArrayList<>();
        dates.ifPresent(when -> {
            changes.add(new Change(when.createdAt(), "registered by the order service: PENDING"));
            if (when.paidAt() != null) {
                Order paid = order.orElseThrow();
                changes.add(new Change(when.paidAt(), "PAID via " + paid.channel() + " " + paid.channelTradeNo()));
            }
            if (when.closedAt() != null) {
                changes.add(new Change(when.closedAt(), "CLOSED"));
            }
        });
        for (Refunds.Listed refund : refundList) {
            changes.add(new Change(refund.createdAt(), "refund " + refund.refundNo() + " recorded (" + refund.reason() + ")"));
            if (refund.status().settled()) {
                changes.add(new Change(refund.updatedAt(), "refund " + refund.refundNo() + " " + refund.status().name()));
            }
        }
        close.ifPresent(request -> {
            changes.add(new Change(request.createdAt(), "CLOSING: close asked by " + request.requestedBy()
                    + ", at the providers first"));
            if (request.status() == RowStatus.DONE.code()) {
                changes.add(new Change(request.updatedAt(), "close request ended: " + request.outcome()));
            } else if (request.status() == RowStatus.DEAD.code()) {
                changes.add(new Change(request.updatedAt(), "close request given up after " + request.tries()
                        + " tries, the order stays CLOSING for an operator: " + request.lastError()));
            }
        });
        for (ProviderCalls.Listed call : calls) {
            changes.add(new Change(call.at(), call.channel() + " " + call.operation()
                    + (call.subject() == null ? "" : " " + call.subject()) + ": " + call.answer()));
        }
        order.filter(found -> found.status() == OrderStatus.REFUNDED).ifPresent(found ->
                dates.ifPresent(when -> changes.add(new Change(when.updatedAt(), "REFUNDED in full"))));
        changes.sort(Comparator.comparing(Change::at));
        return changes;
    }
}
