package io.paycallback.trade;

import java.util.Objects;

/**
 * The provider's number of a payment (WeChat Pay transaction_id, Alipay trade_no, Stripe PaymentIntent).
 * A type of its own, like the other trade numbers, so that they cannot be passed in each other's place.
 */
public record ChannelTradeNo(String value) {

    public ChannelTradeNo {
        Objects.requireNonNull(value, "ChannelTradeNo");
    }

    /** For a column or field that may hold no trade number: null stays null. */
    public static ChannelTradeNo ofNullable(String value) {
        return value == null ? null : new ChannelTradeNo(value);
    }

    /** The inverse of {@link #ofNullable}. */
    public static String valueOrNull(ChannelTradeNo number) {
        return number == null ? null : number.value();
    }

    /** The number itself: what a log line, an error and a stored description show. */
    @Override
    public String toString() {
        return value;
    }
}
