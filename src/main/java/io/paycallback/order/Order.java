package io.paycallback.order;

import io.paycallback.db.UnknownValueException;

import java.math.BigDecimal;
import java.time.LocalDateTime;
import java.util.Optional;

/**
 * An order as stored.
 *
 * @param status            {@link OrderStatus#UNKNOWN} when the stored status is one this build does not know
 * @param storedStatus      the status column as stored, which names the status even then
 * @param combineOutTradeNo the WeChat Pay combine payment (合单) the order is paid in, when the order service made one
 */
public record Order(String merchantId, String outTradeNo, BigDecimal amount, String currency, OrderStatus status,
                    String channel, String channelTradeNo, LocalDateTime paidAt, BigDecimal refundedAmount,
                    String storedStatus, Optional<String> combineOutTradeNo) {

    public Order(String merchantId, String outTradeNo, BigDecimal amount, String currency, OrderStatus status,
                 String channel, String channelTradeNo, LocalDateTime paidAt, BigDecimal refundedAmount) {
        this(merchantId, outTradeNo, amount, currency, status, channel, channelTradeNo, paidAt, refundedAmount,
                status.name(), Optional.empty());
    }

    /** The status, for deciding on the order: one this build does not know is left for a release that does. */
    public OrderStatus known() {
        if (status == OrderStatus.UNKNOWN) {
            throw new UnknownValueException("orders.status", storedStatus);
        }
        return status;
    }
}
