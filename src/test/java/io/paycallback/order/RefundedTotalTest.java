package io.paycallback.order;

import io.paycallback.testsupport.Permutations;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RefundedTotalTest {

    /** One provider notice: its refund identity, and the amount and running total it states (either may be null). */
    private record Notice(String key, BigDecimal amount, BigDecimal total) {
    }

    @Test
    void alipayRunningTotalsInEveryOrderNeverExceedTheProvidersAndEndAtIt() {
        // Refunds of 20.00, 15.00 and 15.00 on a 50.00 payment: refund_fee reports 20.00, 35.00, 50.00.
        List<Notice> notices = List.of(new Notice("B1", null, yuan("20.00")), new Notice("B2", null, yuan("35.00")),
                new Notice("B3", null, yuan("50.00")));
        assertEveryOrderConverges(notices, yuan("50.00"));
    }

    @Test
    void stripeChargeTotalsAndRefundObjectsTogetherCountEachRefundOnce() {
        // Two partial refunds of 30.00 and 20.00: charge.refunded without a list reports 30.00 then 50.00, and each
        // refund also arrives as refund.updated with its own amount.
        List<Notice> notices = List.of(new Notice("ch_1:refunded:3000", null, yuan("30.00")),
                new Notice("ch_1:refunded:5000", null, yuan("50.00")), new Notice("re_A", yuan("30.00"), null),
                new Notice("re_B", yuan("20.00"), null));
        assertEveryOrderConverges(notices, yuan("50.00"));
    }

    @Test
    void ownAmountsAddUp() {
        assertEquals(yuan("1.00"), RefundedTotal.NONE.with(yuan("0.03"), null).with(yuan("0.97"), null).value());
    }

    @Test
    void aTotalNeverLowersWhatIsKnown() {
        RefundedTotal total = RefundedTotal.NONE.with(null, yuan("35.00")).with(null, yuan("20.00"));
        assertEquals(yuan("35.00"), total.value());
    }

    /**
     * Replays every arrival order with every notice also duplicated, keeping what the transition keeps (one row per
     * refund identity); the running value never exceeds the final total, never falls, and ends at it.
     */
    private static void assertEveryOrderConverges(List<Notice> notices, BigDecimal finalTotal) {
        List<List<Notice>> orders = Permutations.of(notices);
        for (List<Notice> order : orders) {
            List<Notice> withDuplicates = new ArrayList<>();
            for (Notice notice : order) {
                withDuplicates.add(notice);
                withDuplicates.add(notice);
            }
            Set<String> seen = new HashSet<>();
            RefundedTotal total = RefundedTotal.NONE;
            BigDecimal previous = BigDecimal.ZERO;
            for (Notice notice : withDuplicates) {
                if (seen.add(notice.key())) {
                    total = total.with(notice.amount(), notice.total());
                }
                assertTrue(total.value().compareTo(finalTotal) <= 0, order + " exceeds at " + notice);
                assertTrue(total.value().compareTo(previous) >= 0, order + " falls at " + notice);
                previous = total.value();
            }
            assertEquals(finalTotal, total.value(), order.toString());
        }
    }

    private static BigDecimal yuan(String value) {
        return new BigDecimal(value);
    }
}
