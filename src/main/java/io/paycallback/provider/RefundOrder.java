package io.paycallback.provider;

import java.math.BigDecimal;

/**
 * A refund to submit: all of one payment, or part of it.
 *
 * @param refundNo       our refund number, the idempotency key at the provider (out_refund_no, out_request_no,
 *                       Idempotency-Key)
 * @param channelTradeNo the provider's number of the payment to refund
 * @param paymentAmount  what that payment was
 */
public record RefundOrder(String merchantId, String refundNo, String outTradeNo, String channelTradeNo,
                          BigDecimal amount, BigDecimal paymentAmount, String currency, String reason) {
}
