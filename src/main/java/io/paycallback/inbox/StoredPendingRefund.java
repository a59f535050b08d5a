package io.paycallback.inbox;

import io.paycallback.tracing.Traceparent;
import io.paycallback.trade.ChannelTradeNo;
import io.paycallback.trade.Money;
import io.paycallback.trade.OutTradeNo;
import io.paycallback.trade.RefundNo;

import java.util.Optional;

/**
 * A reserved notice of a refund the provider accepted and is still working on.
 *
 * @param refundNo       the key its final notice will carry
 * @param channelTradeNo null when the notice named no payment
 * @param outTradeNo     null when the notice did not name the order
 * @param amount         this refund's own amount
 * @param traceparent    the span that stored it
 */
public record StoredPendingRefund(long id, String merchantId, String channel, RefundNo refundNo, String channelRefundId,
                                  ChannelTradeNo channelTradeNo, OutTradeNo outTradeNo, Money amount,
                                  Optional<Traceparent> traceparent) {
}
