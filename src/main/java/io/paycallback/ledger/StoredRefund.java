package io.paycallback.ledger;

import java.math.BigDecimal;

/**
 * A reserved refund callback.
 *
 * @param succeeded     whether the provider reports the refund as paid out (otherwise it failed or was closed)
 * @param amount        this refund's own amount, when the notice stated it; else null
 * @param refundedTotal the payment's running total refunded as the notice stated it; else null
 */
public record StoredRefund(long id, String merchantId, String channel, String refundNo, String channelRefundId,
                           String channelTradeNo, String outTradeNo, boolean succeeded, BigDecimal amount,
                           BigDecimal refundedTotal, String currency) implements StoredCallback {
}
