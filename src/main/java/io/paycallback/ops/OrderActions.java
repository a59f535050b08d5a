package io.paycallback.ops;

import io.paycallback.closing.OrderClosing;
import io.paycallback.order.Order;
import io.paycallback.order.OrderStatus;
import io.paycallback.order.Orders;
import io.paycallback.trade.Money;
import io.paycallback.trade.OutTradeNo;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

import java.math.BigDecimal;
import java.util.List;
import java.util.Optional;

/** One order for an operator: finding it by any of its numbers and reading its whole story, and closing it. */
@ApplicationScoped
public class OrderActions {

    static final String CLOSED_AT_PROVIDERS = "providers";
    static final String CLOSED_HERE_ONLY = "here-only";

    /**
     * What a number led to: the order numbers it names, and the story of the order when exactly one does.
     *
     * @param timeline null unless {@code matches} holds exactly one order number
     */
    public record Found(List<String> matches, OrderTimeline.Timeline timeline) {
    }

    /**
     * @param closedAt {@code providers}: every provider the merchant has API keys for closed it (or never had it);
     *                 {@code here-only}: the merchant has no provider API keys, so a payment page may still take money
     *                 (a later payment is then refunded as paid after close); null while CLOSING
     */
    @Schema(name = "ClosedOrder")
    public record ClosedOrder(String outTradeNo,
                         @Schema(description = "CLOSED or CLOSING; for a refusal, the order's status as stored") String status,
                         @Schema(description = "providers, or here-only for a merchant without provider API keys; null while CLOSING")
                         String closedAt) {
    }

    private final OrderTimeline timeline;
    private final OrderClosing closing;
    private final Orders orders;
    private final Pool pool;

    public OrderActions(OrderTimeline timeline, OrderClosing closing, Orders orders, Pool pool) {
        this.timeline = timeline;
        this.closing = closing;
        this.orders = orders;
        this.pool = pool;
    }

    /** The order service registers a PENDING order; a number the merchant has used already is a conflict. */
    public Uni<ActionResult<Order>> register(String merchantId, String outTradeNo, BigDecimal amount, String currency,
                                             Optional<String> combineOutTradeNo) {
        return orders.create(pool, merchantId, outTradeNo, amount, currency, combineOutTradeNo).map(created -> created
                ? ActionResult.done(Order.pending(merchantId, new OutTradeNo(outTradeNo), new Money(amount, currency),
                combineOutTradeNo.map(OutTradeNo::new)), "registered")
                : ActionResult.conflict("order " + outTradeNo + " already exists"));
    }

    public Uni<ActionResult<Order>> read(String merchantId, String outTradeNo) {
        return orders.find(pool, merchantId, outTradeNo).map(order -> order
                .map(found -> ActionResult.done(found, "order " + outTradeNo))
                .orElseGet(() -> ActionResult.notFound("no order " + outTradeNo)));
    }

    /** Finds the order(s) a number of the given kind leads to, and reads the story of the one it names. */
    @OperatorAction.Performs(OperatorAction.ORDER_TIMELINE)
    public Uni<ActionResult<Found>> find(String by, String merchantId, String number) {
        Optional<OrderTimeline.SearchBy> searchBy = OrderTimeline.SearchBy.named(by == null ? "order" : by);
        String merchant = OperatorDefaults.merchant(merchantId);
        if (searchBy.isEmpty() || number == null || number.isBlank()) {
            return Uni.createFrom().item(ActionResult.refused("by is order|trade|refund, and a number is needed"));
        }
        return timeline.find(searchBy.get(), merchant, number.strip()).flatMap(matches -> matches.size() == 1
                ? timeline.read(merchant, matches.get(0)).map(story -> ActionResult.done(new Found(matches, story),
                "order " + matches.get(0)))
                : Uni.createFrom().item(ActionResult.done(new Found(matches, null), matches.size() + " orders match")));
    }

    /**
     * Closes a PENDING order, at its providers first so the buyer's payment page stops taking money. Blocking: the
     * first try at the providers is made while the caller waits (worker threads only).
     */
    @OperatorAction.Performs(OperatorAction.ORDER_CLOSE)
    public ActionResult<ClosedOrder> close(String merchantId, String outTradeNo, String actor) {
        OrderClosing.ClosingOutcome closed = closing.close(OperatorDefaults.merchant(merchantId), outTradeNo, actor);
        return switch (closed.result()) {
            case CLOSED -> ActionResult.done(new ClosedOrder(outTradeNo, OrderStatus.CLOSED.name(), CLOSED_AT_PROVIDERS),
                    "closed at the providers");
            case CLOSED_HERE_ONLY -> ActionResult.done(new ClosedOrder(outTradeNo, OrderStatus.CLOSED.name(), CLOSED_HERE_ONLY),
                    "closed here only: the merchant has no provider API keys");
            case CLOSING -> ActionResult.done(new ClosedOrder(outTradeNo, OrderStatus.CLOSING.name(), null),
                    "CLOSING: a provider was not reached; the close is retried");
            case NOT_FOUND -> ActionResult.notFound("no order " + outTradeNo);
            case NOT_PENDING -> {
                String status = closed.order().orElseThrow().storedStatus();
                yield ActionResult.conflict("order is " + status + ", only PENDING can close",
                        new ClosedOrder(outTradeNo, status, null));
            }
        };
    }
}
