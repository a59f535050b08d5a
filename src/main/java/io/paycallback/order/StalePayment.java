package io.paycallback.order;

import io.paycallback.trade.ChannelTradeNo;

import java.util.Locale;

/**
 * What a paid notice means when the order was no longer PENDING (the conditional update changed nothing). Only the
 * transition that moved PENDING to PAID may emit the order's effects; every other notice lands here.
 */
public enum StalePayment {
    /** The same payment again: nothing to do. */
    DUPLICATE,
    /** The order was already paid by another payment: return this one. */
    PAID_TWICE,
    /** The order was closed before the buyer paid: return the money. */
    PAID_AFTER_CLOSE,
    /** Not a state this rule knows how to settle: try again later, then a person looks. */
    UNRESOLVED;

    public static StalePayment of(Order order, String channel, ChannelTradeNo channelTradeNo) {
        boolean samePayment = channel.equals(order.channel()) && channelTradeNo.equals(order.channelTradeNo());
        return switch (order.known()) {
            case PAID -> samePayment ? DUPLICATE : PAID_TWICE;
            case CLOSED -> PAID_AFTER_CLOSE;
            case REFUNDED -> samePayment ? DUPLICATE : UNRESOLVED;
            // Both are moved to PAID by the conditional update itself; seen here, the order changed under us.
            case PENDING, CLOSING -> UNRESOLVED;
            case UNKNOWN -> throw new IllegalStateException("known() never answers UNKNOWN");
        };
    }

    public boolean refunds() {
        return this == PAID_TWICE || this == PAID_AFTER_CLOSE;
    }

    public String reason() {
        return name().toLowerCase(Locale.ROOT);
    }
}
