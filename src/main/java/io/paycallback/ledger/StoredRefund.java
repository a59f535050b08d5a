package io.paycallback.ledger;

import java.math.BigDecimal;

/**
 * A reserved refund callback.
 *
 * @param succeeded whether the provider reports the refund as paid out (otherwise it failed or was closed)
 */
public record StoredRefund(long id, String merchantId, String channel, String refundNo, String channelRefundId,
                           String channelTradeNo, String outTradeNo, boolean succeeded, BigDecimal amount,
                           String currency) {
}
