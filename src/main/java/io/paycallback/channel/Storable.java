package io.paycallback.channel;

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

    private Storable() {
    }

    public static Notice checked(Notice notice) throws Rejection.Malformed {
        if (notice instanceof Notice.Payment payment) {
            numbers(payment.channelTradeNo(), payment.outTradeNo());
            if (payment.tradeState().codePointCount(0, payment.tradeState().length()) > STATE_LENGTH) {
                throw Rejection.malformed("trade state longer than the ledger holds");
            }
            amounts(payment.amount());
        } else if (notice instanceof Notice.Refund refund) {
            numbers(refund.refundNo(), refund.channelRefundId(), refund.channelTradeNo(), refund.outTradeNo());
            amounts(refund.amount(), refund.refundedTotal());
        } else if (notice instanceof Notice.RefundPending pending) {
            numbers(pending.refundNo(), pending.channelRefundId(), pending.channelTradeNo(), pending.outTradeNo());
            amounts(pending.amount());
        } else if (notice instanceof Notice.Combined combined) {
            for (Notice.Payment payment : combined.payments()) {
                checked(payment);
            }
        }
        return notice;
    }

    private static void numbers(String... numbers) throws Rejection.Malformed {
        if (Stream.of(numbers).anyMatch(n -> n != null && n.codePointCount(0, n.length()) > NUMBER_LENGTH)) {
            throw Rejection.malformed("a trade or refund number longer than the ledger holds");
        }
    }

    private static void amounts(BigDecimal... amounts) throws Rejection.Malformed {
        if (Stream.of(amounts).anyMatch(a -> a != null && a.compareTo(AMOUNT_LIMIT) >= 0)) {
            throw Rejection.malformed("an amount larger than the ledger holds");
        }
    }
}
