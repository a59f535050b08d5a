package io.paycallback.order;

import java.math.BigDecimal;

/**
 * How much of one payment is refunded, derived from what the provider told us: the largest running total it reported
 * (Alipay refund_fee, a Stripe charge's amount_refunded) and the sum of the distinct refunds whose own amount it
 * stated (WeChat amount.refund, a Stripe refund's amount). Each is a lower bound of the truth, one refund is never
 * added twice (refunds are distinct by their provider identity, totals are never added at all), so the larger of the
 * two never exceeds what the provider refunded, whatever order and how often the notices arrive, and it reaches the
 * provider's total once the notice carrying it, or every refund's own notice, has arrived.
 *
 * @param reported the largest running total reported so far
 * @param listed   the sum of the own amounts of distinct successful refunds
 */
public record RefundedTotal(BigDecimal reported, BigDecimal listed) {

    public static final RefundedTotal NONE = new RefundedTotal(BigDecimal.ZERO, BigDecimal.ZERO);

    public BigDecimal value() {
        return reported.max(listed);
    }

    /**
     * @param amount        the new refund's own amount, or null when its notice states only a running total
     * @param refundedTotal the running total its notice reported, or null
     */
    public RefundedTotal with(BigDecimal amount, BigDecimal refundedTotal) {
        return new RefundedTotal(refundedTotal == null ? reported : reported.max(refundedTotal),
                amount == null ? listed : listed.add(amount));
    }
}
