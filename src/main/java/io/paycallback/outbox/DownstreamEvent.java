package io.paycallback.outbox;

import java.math.BigDecimal;

/**
 * One business effect, as it is sent downstream.
 *
 * @param source what caused it (for example {@code pay:42}); with the type it names the event for good, so writing it
 *               twice is impossible and its Idempotency-Key is stable
 */
public record DownstreamEvent(String source, String type, String merchantId, String outTradeNo, String channel,
                              String channelTradeNo, String refundNo, BigDecimal amount, String currency,
                              String reason) {

    public String id() {
        return source + ":" + type;
    }

    public static DownstreamEvent alert(String source, String merchantId, String outTradeNo, String channel,
                                        String channelTradeNo, BigDecimal amount, String currency, String reason) {
        return new DownstreamEvent(source, EventType.ALERT, merchantId, outTradeNo, channel, channelTradeNo, null,
                amount, currency, reason);
    }
}
