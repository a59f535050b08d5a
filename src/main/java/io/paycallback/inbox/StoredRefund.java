package io.paycallback.inbox;

import io.paycallback.trade.ChannelTradeNo;
import io.paycallback.trade.OutTradeNo;
import io.paycallback.trade.RefundNo;
import io.paycallback.tracing.Traceparent;

import java.math.BigDecimal;
import java.util.Optional;

/**
 * A reserved refund callback. Its amounts stay apart from {@link io.paycallback.trade.Money}: a notice may state
 * either of them, or neither.
 *
 * @param channelTradeNo null when the notice named no payment
 * @param outTradeNo     null when the notice did not name the order
 * @param succeeded      whether the provider reports the refund as paid out (otherwise it failed or was closed)
 * @param amount         this refund's own amount, when the notice stated it; else null
 * @param refundedTotal  the payment's running total refunded as the notice stated it; else null
 * @param traceparent    the span that stored it
 */
public record StoredRefund(long id, String merchantId, String channel, RefundNo refundNo, String channelRefundId,
                           ChannelTradeNo channelTradeNo, OutTradeNo outTradeNo, boolean succeeded, BigDecimal amount,
                           BigDecimal refundedTotal, String currency, Optional<Traceparent> traceparent)
        implements StoredCallback {
}
