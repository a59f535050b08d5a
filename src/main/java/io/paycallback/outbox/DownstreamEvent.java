package io.paycallback.outbox;

import java.math.BigDecimal;

/**
 * One business effect, as it is sent downstream.
 *
 * @param source        what caused it (for example {@code pay:42}); with the type it names the event for good, so
 *                      writing it twice is impossible and its Idempotency-Key is stable
 * @param amount        the payment's amount; for {@code refund.succeeded}, how much this refund added to the payment's
 *                      refunded total, so that over a payment's refund events the amounts add up to that total
 * @param refundAmount  for refund events, the refund's own amount when the provider stated it; else null
 * @param refundedTotal for {@code refund.succeeded}, the payment's refunded total after this refund; else null
 */
public record DownstreamEvent(String source, EventType type, String merchantId, String outTradeNo, String channel,
                              String channelTradeNo, String refundNo, BigDecimal amount, BigDecimal refundAmount,
                              BigDecimal refundedTotal, String currency, String reason) {

    public String id() {
        return source + ":" + type.wire();
    }

    public static DownstreamEvent alert(String source, String merchantId, String outTradeNo, String channel,
                                        String channelTradeNo, BigDecimal amount, String currency, String reason) {
        return new DownstreamEvent(source, EventType.ALERT, merchantId, outTradeNo, channel, channelTradeNo, null,
                amount, null, null, currency, reason);
    }
}
