package io.paycallback.statement.bill;

import java.math.BigDecimal;

/**
 * One movement of money a provider booked in its bill, in the terms the comparison with the ledger needs. Identities
 * are the ones our ledger stores: our order number and refund number where the provider echoes them, and the
 * provider's own numbers.
 *
 * @param kind             a payment or a refund
 * @param outTradeNo       our order number (WeChat 商户订单号, Alipay 商户订单号, Stripe metadata.out_trade_no); null when
 *                         the provider does not say
 * @param providerTradeNo  the provider's number of the payment (WeChat 微信订单号, Alipay 支付宝交易号, Stripe pi_ id, or
 *                         the ch_ id of a charge without a PaymentIntent)
 * @param refundNo         for a refund, our refund number (WeChat 商户退款单号, Alipay 退款批次号/请求号, Stripe
 *                         metadata.out_refund_no); null for a payment, or when the provider does not say
 * @param providerRefundNo for a refund, the provider's refund id (WeChat 微信退款单号, Stripe re_ id); null otherwise
 * @param amount           positive, at the ledger's scale of 2: a payment's order amount, a refund's requested amount
 * @param currency         upper-case ISO 4217
 * @param state            what the bill says of it, frozen when the bill was made
 * @param line             the line's number in its file (1-based, counting every line), or its index in a listing
 */
public record BillLine(Kind kind, String outTradeNo, String providerTradeNo, String refundNo, String providerRefundNo,
                       BigDecimal amount, String currency, State state, long line) {

    public BillLine {
        if (kind == null || state == null || amount == null || currency == null) {
            throw new IllegalArgumentException("a bill line has a kind, a state, an amount and a currency");
        }
        if (amount.signum() < 0) {
            throw new IllegalArgumentException("bill amounts are positive; a refund is told by its kind");
        }
        if (kind == Kind.PAYMENT && (state == State.PROCESSING || state == State.FAILED)) {
            throw new IllegalArgumentException("a payment line is booked or revoked, never " + state);
        }
    }

    public enum Kind {
        PAYMENT,
        REFUND
    }

    public enum State {
        /** A payment booked, or a refund that succeeded. */
        SUCCEEDED,
        /** A payment the provider reversed after booking it (WeChat REVOKED). */
        REVOKED,
        /** A refund the provider had not finished when the bill was made. */
        PROCESSING,
        /** A refund that failed. */
        FAILED
    }
}
