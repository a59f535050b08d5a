package io.paycallback.provider;

import io.paycallback.trade.ChannelTradeNo;
import io.paycallback.trade.Money;
import io.paycallback.trade.OutTradeNo;
import io.paycallback.trade.RefundNo;

/**
 * A refund to submit: all of one payment, or part of it.
 *
 * @param refundNo       our refund number, the idempotency key at the provider (out_refund_no, out_request_no,
 *                       Idempotency-Key)
 * @param outTradeNo     null when the refund names no order
 * @param channelTradeNo the provider's number of the payment to refund; null when the refund names none
 * @param paymentAmount  what that payment was, in the refund's currency; null when only asked about
 */
public record RefundOrder(String merchantId, RefundNo refundNo, OutTradeNo outTradeNo, ChannelTradeNo channelTradeNo,
                          Money amount, Money paymentAmount, String reason) {

    public String currency() {
        return amount.currency();
    }
}
