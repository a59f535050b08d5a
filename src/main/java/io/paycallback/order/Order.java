package io.paycallback.order;

import io.paycallback.db.UnknownValueException;
import io.paycallback.trade.ChannelTradeNo;
import io.paycallback.trade.Money;
import io.paycallback.trade.OutTradeNo;

import java.math.BigDecimal;
import java.time.LocalDateTime;
import java.util.Optional;

/**
 * An order as stored.
 *
 * @param amount            what the buyer pays, in the order's currency
 * @param channelTradeNo    the provider's number of the payment; null until paid
 * @param refunded          what has been refunded of it, in the same currency
 * @param status            {@link OrderStatus#UNKNOWN} when the stored status is one this build does not know
 * @param storedStatus      the status column as stored, which names the status even then
 * @param combineOutTradeNo the WeChat Pay combine payment (合单) the order is paid in, when the order service made one
 */
public record Order(String merchantId, OutTradeNo outTradeNo, Money amount, OrderStatus status, String channel,
                    ChannelTradeNo channelTradeNo, LocalDateTime paidAt, Money refunded, String storedStatus,
                    Optional<OutTradeNo> combineOutTradeNo) {

    /** An order just registered: nothing paid, nothing refunded. */
    public static Order pending(String merchantId, OutTradeNo outTradeNo, Money amount,
                                Optional<OutTradeNo> combineOutTradeNo) {
        return new Order(merchantId, outTradeNo, amount, OrderStatus.PENDING, null, null, null,
                new Money(BigDecimal.ZERO, amount.currency()), OrderStatus.PENDING.name(), combineOutTradeNo);
    }

    /** The status, for deciding on the order: one this build does not know is left for a release that does. */
    public OrderStatus known() {
        if (status == OrderStatus.UNKNOWN) {
            throw new UnknownValueException("orders.status", storedStatus);
        }
        return status;
    }
}
