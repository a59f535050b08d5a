package io.paycallback.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.paycallback.order.Order;
import io.paycallback.order.OrderStatus;
import io.paycallback.trade.ChannelTradeNo;
import io.paycallback.trade.OutTradeNo;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

import java.time.LocalDateTime;

/** The order API's answers. Amounts are decimal strings, never JSON numbers, so no client reads them as doubles. */
public final class OrderViews {

    private OrderViews() {
    }

    @Schema(name = "Order")
    public record OrderView(String merchantId, String outTradeNo,
                            @Schema(description = "PENDING, PAID, CLOSING, CLOSED or REFUNDED; as stored, also when a"
                                    + " newer release wrote a status this one does not know") String status,
                            @Schema(example = "88.00") String amount, String currency,
                            @Schema(example = "0.00") String refundedAmount, String channel, String channelTradeNo,
                            LocalDateTime paidAt,
                            @JsonInclude(JsonInclude.Include.NON_NULL)
                            @Schema(description = "the combine payment the order is paid in, when it is") String combineOutTradeNo) {

        /** The one place an order becomes its API form. */
        static OrderView of(Order order) {
            return new OrderView(order.merchantId(), order.outTradeNo().value(), order.storedStatus(),
                    order.amount().amount().toPlainString(), order.amount().currency(),
                    order.refunded().amount().toPlainString(), order.channel(),
                    ChannelTradeNo.valueOrNull(order.channelTradeNo()), order.paidAt(),
                    order.combineOutTradeNo().map(OutTradeNo::value).orElse(null));
        }
    }

    @Schema(name = "CreatedOrder")
    public record Created(String merchantId, String outTradeNo, @Schema(example = "88.00") String amount,
                          String currency, OrderStatus status) {

        static Created of(OrderRequest request) {
            return new Created(request.merchantId(), request.outTradeNo(), request.amount().toPlainString(),
                    request.currency(), OrderStatus.PENDING);
        }
    }

    /** 409: the error, and the state the order is in (PAID when a provider said it was paid). */
    @Schema(name = "OrderNotClosed")
    public record NotClosed(String error, String outTradeNo, String status) {
    }
}
