package io.paycallback.statement.bill;

import java.math.BigDecimal;

/**
 * Counts and sums of one side of a statement run: the lines of a bill, or our rows for the same day. Refund sums are
 * positive, like {@link BillLine#amount()}.
 */
public record BillTotals(long paymentCount, BigDecimal paymentSum, long refundCount, BigDecimal refundSum) {

    public static final BillTotals EMPTY = new BillTotals(0, BigDecimal.ZERO.setScale(2), 0, BigDecimal.ZERO.setScale(2));

    /** These totals with one more line counted. */
    public BillTotals plus(BillLine line) {
        return line.kind() == BillLine.Kind.PAYMENT
                ? new BillTotals(paymentCount + 1, paymentSum.add(line.amount()), refundCount, refundSum)
                : new BillTotals(paymentCount, paymentSum, refundCount + 1, refundSum.add(line.amount()));
    }
}
