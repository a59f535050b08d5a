package io.paycallback.channel;

import io.paycallback.trade.ChannelId;
import io.paycallback.trade.ChannelTradeNo;
import io.paycallback.trade.Money;
import io.paycallback.trade.OutTradeNo;
import io.paycallback.trade.RefundNo;
import java.util.List;
import java.util.Optional;

/**
 * A verified, parsed callback in provider-neutral terms. Whatever acts on a notice by its kind does so through
 * {@link #accept}, so a new kind does not compile until every such place handles it.
 */
public sealed interface Notice {

    <R, X extends Exception> R accept(Visitor<R, X> visitor) throws X;

    /**
     * Why nothing of this notice is stored (a state or event we do not act on, a combine with no paid sub-order); empty
     * when something is. Asked before the store, so that such a notice costs ingest no INSERT, worker slot or timer.
     */
    Optional<String> ignoredBecause();

    /** One method per kind of notice; {@code X} is what the visitor may throw, {@link RuntimeException} for nothing. */
    interface Visitor<R, X extends Exception> {

        R payment(Payment payment) throws X;

        R refund(Refund refund) throws X;

        R refundPending(RefundPending pending) throws X;

        R combined(Combined combined) throws X;

        R ignored(Ignored ignored) throws X;
    }

    /** A payment the provider reports as paid; only paid states become a Payment. */
    record Payment(String merchantId, ChannelId channel, ChannelTradeNo channelTradeNo, OutTradeNo outTradeNo,
                   String tradeState, Money amount) implements Notice {

        @Override
        public <R, X extends Exception> R accept(Visitor<R, X> visitor) throws X {
            return visitor.payment(this);
        }

        @Override
        public Optional<String> ignoredBecause() {
            return Optional.empty();
        }
    }

    /**
     * A refund in a final state. Providers report refund money in two ways, and a notice carries whichever it has: a
     * refund's own amount, or the payment's running total refunded (which no refund may be added to twice).
     *
     * @param refundNo        the provider's identity of this refund: our refund number when it echoes one (out_refund_no,
     *                        out_biz_no), else its own refund id; for a Stripe charge that lists no refunds, the charge
     *                        and its running total, since the notice names no refund
     * @param channelRefundId the provider's own refund id, when it sends one
     * @param channelTradeNo  the provider's number of the payment being refunded
     * @param outTradeNo      null when the notice does not name the order
     * @param amount          this refund's own amount, when the notice states it; null otherwise
     * @param refundedTotal   the payment's total refunded so far, when the notice states it; null otherwise
     */
    record Refund(String merchantId, ChannelId channel, RefundNo refundNo, String channelRefundId,
                  ChannelTradeNo channelTradeNo, OutTradeNo outTradeNo, RefundResult result,
                  Money amount, Money refundedTotal) implements Notice {

        public Refund {
            if (amount == null && refundedTotal == null) {
                throw new IllegalArgumentException("a refund notice states its amount, the refunded total, or both");
            }
            if (amount != null && refundedTotal != null && !amount.currency().equals(refundedTotal.currency())) {
                throw new IllegalArgumentException("a refund notice's amounts are in one currency");
            }
        }

        /** The currency of whichever amount the notice states. */
        public String currency() {
            return (amount == null ? refundedTotal : amount).currency();
        }

        /**
         * A refund a provider's answer settled is stored with this as its body, since no notice body exists: the
         * numbers and amounts as plain values, in the layout such rows have always had.
         */
        @Override
        public String toString() {
            return "Refund[merchantId=" + merchantId + ", channel=" + channel + ", refundNo=" + refundNo.value()
                    + ", channelRefundId=" + channelRefundId + ", channelTradeNo=" + ChannelTradeNo.valueOrNull(channelTradeNo)
                    + ", outTradeNo=" + OutTradeNo.valueOrNull(outTradeNo) + ", result=" + result
                    + ", amount=" + Money.amountOrNull(amount) + ", refundedTotal=" + Money.amountOrNull(refundedTotal)
                    + ", currency=" + currency() + "]";
        }

        @Override
        public <R, X extends Exception> R accept(Visitor<R, X> visitor) throws X {
            return visitor.refund(this);
        }

        @Override
        public Optional<String> ignoredBecause() {
            return Optional.empty();
        }
    }

    /**
     * A refund the provider accepted and is still working on (Stripe {@code pending}, WeChat Pay {@code PROCESSING}).
     * Never stored as a refund result, which would take its final notice's key; it enrols the refund for the same
     * status queries as a refund we submitted, so one that never gets a final notice is still settled, or alerted.
     *
     * @param refundNo   the same key its final notice will carry
     * @param outTradeNo null when the notice does not name the order
     * @param amount     this refund's own amount
     */
    record RefundPending(String merchantId, ChannelId channel, RefundNo refundNo, String channelRefundId,
                         ChannelTradeNo channelTradeNo, OutTradeNo outTradeNo, Money amount) implements Notice {

        @Override
        public <R, X extends Exception> R accept(Visitor<R, X> visitor) throws X {
            return visitor.refundPending(this);
        }

        @Override
        public Optional<String> ignoredBecause() {
            return Optional.empty();
        }
    }

    /**
     * A combine payment (WeChat Pay 合单支付): one notice about several orders, each paid on its own. Each sub-order is
     * a {@link Payment} of its own order (stored, reserved and moved once, like a single payment's notice), or
     * {@link Ignored} when it is not paid.
     */
    record Combined(OutTradeNo combineOutTradeNo, List<Notice> subOrders) implements Notice {

        public Combined {
            if (subOrders.isEmpty() || subOrders.stream().anyMatch(sub -> !(sub instanceof Payment || sub instanceof Ignored))) {
                throw new IllegalArgumentException("a combine notice's sub-orders are payments, or ignored");
            }
            subOrders = List.copyOf(subOrders);
        }

        @Override
        public <R, X extends Exception> R accept(Visitor<R, X> visitor) throws X {
            return visitor.combined(this);
        }

        @Override
        public Optional<String> ignoredBecause() {
            return payments().isEmpty() ? Optional.of("no sub-order is paid") : Optional.empty();
        }

        /** The sub-orders that were paid. */
        public List<Payment> payments() {
            return subOrders.stream().filter(Payment.class::isInstance).map(Payment.class::cast).toList();
        }
    }

    /** Signed and understood, but not something we act on (an unpaid state, an event type we do not use). */
    record Ignored(String reason) implements Notice {

        @Override
        public <R, X extends Exception> R accept(Visitor<R, X> visitor) throws X {
            return visitor.ignored(this);
        }

        @Override
        public Optional<String> ignoredBecause() {
            return Optional.of(reason);
        }
    }

    enum RefundResult {
        SUCCEEDED,
        FAILED
    }
}
