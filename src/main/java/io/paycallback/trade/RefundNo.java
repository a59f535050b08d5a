package io.paycallback.trade;

import java.util.Objects;

/**
 * A refund's number: ours (out_refund_no, out_biz_no) where the provider echoes it, else the provider's own
 * refund id. A type of its own, like the other trade numbers, so that they cannot be passed in each other's
 * place.
 */
public record RefundNo(String value) {

    public RefundNo {
        Objects.requireNonNull(value, "RefundNo");
    }

    /** For a field that may hold no refund number: null stays null. */
    public static String valueOrNull(RefundNo number) {
        return number == null ? null : number.value();
    }

    /** The number itself: what a log line, an error and a stored description show. */
    @Override
    public String toString() {
        return value;
    }
}
