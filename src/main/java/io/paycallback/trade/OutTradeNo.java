package io.paycallback.trade;

import java.util.Objects;

/**
 * The merchant's own number of an order (out_trade_no). A type of its own, like the other trade numbers, so
 * that the numbers, all strings on the wire, cannot be passed in each other's place.
 */
public record OutTradeNo(String value) {

    public OutTradeNo {
        Objects.requireNonNull(value, "OutTradeNo");
    }

    /** For a column or field that may hold no out_trade_no: null stays null. */
    public static OutTradeNo ofNullable(String value) {
        return value == null ? null : new OutTradeNo(value);
    }

    /** The inverse of {@link #ofNullable}. */
    public static String valueOrNull(OutTradeNo number) {
        return number == null ? null : number.value();
    }

    /** The number itself: what a log line, an error and a stored description show. */
    @Override
    public String toString() {
        return value;
    }
}
