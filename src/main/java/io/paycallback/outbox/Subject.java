package io.paycallback.outbox;

import io.paycallback.trade.ChannelTradeNo;
import io.paycallback.trade.Money;
import io.paycallback.trade.OutTradeNo;
import io.paycallback.trade.RefundNo;

import java.math.BigDecimal;

/**
 * What a downstream event is about, with the order fields it carries on the wire. Each kind has only the fields it
 * knows; the accessors are the wire's view, null where the wire field stays empty.
 */
public sealed interface Subject permits Subject.Payment, Subject.Refund, Subject.Trade {

    String merchantId();

    OutTradeNo outTradeNo();

    String channel();

    ChannelTradeNo channelTradeNo();

    default RefundNo refundNo() {
        return null;
    }

    BigDecimal amount();

    default BigDecimal refundAmount() {
        return null;
    }

    String currency();

    /** A settled payment: every field known. */
    record Payment(String merchantId, String channel, OutTradeNo outTradeNo, ChannelTradeNo channelTradeNo,
                   Money paid) implements Subject {

        /** The refund of the whole payment, as the stale-payment rule requests it. */
        public Refund refundInFull(RefundNo refundNo) {
            return new Refund(merchantId, channel, outTradeNo, channelTradeNo, refundNo, paid.amount(), paid.currency());
        }

        @Override
        public BigDecimal amount() {
            return paid.amount();
        }

        @Override
        public String currency() {
            return paid.currency();
        }
    }

    /**
     * A refund; on the wire its amount is both the amount and the refund amount.
     *
     * @param outTradeNo     null only where the stored refund has none (a notice given up on before its payment was
     *                       found)
     * @param channelTradeNo null only where the stored refund has none (a notice that named no payment)
     * @param amount         the refund's own amount; null when its notice stated only the payment's refunded total
     */
    record Refund(String merchantId, String channel, OutTradeNo outTradeNo, ChannelTradeNo channelTradeNo,
                  RefundNo refundNo, BigDecimal amount, String currency) implements Subject {

        @Override
        public BigDecimal refundAmount() {
            return amount;
        }
    }

    /**
     * A trade as far as an alert knows it, when it is about neither a settled payment nor a refund: any field but the
     * merchant may be unknown (null).
     */
    record Trade(String merchantId, OutTradeNo outTradeNo, String channel, ChannelTradeNo channelTradeNo,
                 BigDecimal amount, String currency) implements Subject {

        public static Trade order(String merchantId, OutTradeNo outTradeNo) {
            return new Trade(merchantId, outTradeNo, null, null, null, null);
        }

        public static Trade channel(String merchantId, String channel) {
            return new Trade(merchantId, null, channel, null, null, null);
        }
    }
}
