package io.paycallback.channel;

import io.paycallback.trade.ChannelTradeNo;
import io.paycallback.trade.Money;
import io.paycallback.trade.OutTradeNo;

import java.math.BigDecimal;
import java.util.stream.Stream;

/**
 * The ledger's column limits, checked on every notice a channel accepts (see db/migration V1 and V3). A signed notice
 * beyond them is {@link Rejection.Malformed} and quarantined: accepted, its INSERT would fail on every delivery, be
 * answered 500 for the provider's whole retry window and never reach an operator.
 */
public final class Storable {

    /** VARCHAR(64): trade, refund and order numbers, counted in characters as utf8mb4 columns count them. */
    static final int NUMBER_LENGTH = 64;
    /** VARCHAR(32): pay_callback_log.trade_state. */
    static final int STATE_LENGTH = 32;
    /** DECIMAL(18, 2): sixteen integer digits. */
    static final BigDecimal AMOUNT_LIMIT = new BigDecimal("1E16");

    private static final Notice.Visitor<Void, Rejection.Malformed> CHECK = new Notice.Visitor<>() {

        @Override
        public Void payment(Notice.Payment payment) throws Rejection.Malformed {
            numbers(payment.channelTradeNo().value(), payment.outTradeNo().value());
            if (payment.tradeState().codePointCount(0, payment.tradeState().length()) > STATE_LENGTH) {
                throw Rejection.malformed("trade state longer than the ledger holds");
            }
            amounts(payment.amount());
            return null;
        }

        @Override
        public Void refund(Notice.Refund refund) throws Rejection.Malformed {
            numbers(refund.refundNo().value(), refund.channelRefundId(), ChannelTradeNo.valueOrNull(refund.channelTradeNo()),
                    OutTradeNo.valueOrNull(refund.outTradeNo()));
            amounts(refund.amount(), refund.refundedTotal());
            return null;
        }

        @Override
        public Void refundPending(Notice.RefundPending pending) throws Rejection.Malformed {
            numbers(pending.refundNo().value(), pending.channelRefundId(), ChannelTradeNo.valueOrNull(pending.channelTradeNo()),
                    OutTradeNo.valueOrNull(pending.outTradeNo()));
            amounts(pending.amount());
            return null;
        }

        @Override
        public Void combined(Notice.Combined combined) throws Rejection.Malformed {
            for (Notice.Payment payment : combined.payments()) {
                payment(payment);
            }
            return null;
        }

        @Override
        public Void ignored(Notice.Ignored ignored) {
            return null;
        }
    };

    private Storable() {
    }

    public static Notice checked(Notice notice) throws Rejection.Malformed {
        notice.accept(CHECK);
        return notice;
    }

    private static void numbers(String... numbers) throws Rejection.Malformed {
        if (Stream.of(numbers).anyMatch(n -> n != null && n.codePointCount(0, n.length()) > NUMBER_LENGTH)) {
            throw Rejection.malformed("a trade or refund number longer than the ledger holds");
        }
    }

    private static void amounts(Money... amounts) throws Rejection.Malformed {
        if (Stream.of(amounts).anyMatch(a -> a != null && a.amount().compareTo(AMOUNT_LIMIT) >= 0)) {
            throw Rejection.malformed("an amount larger than the ledger holds");
        }
    }
}
