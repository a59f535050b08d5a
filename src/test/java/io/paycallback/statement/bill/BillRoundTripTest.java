package io.paycallback.statement.bill;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Function;

import static io.paycallback.statement.bill.BillLine.Kind.PAYMENT;
import static io.paycallback.statement.bill.BillLine.Kind.REFUND;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Random lines → generator → reader gives back the same lines and totals, for every format and knob that keeps a
 * file whole. Seeded, so a failure names the seed and repeats.
 */
class BillRoundTripTest {

    private static final int RUNS = 200;

    @Test
    void wxPay() throws Exception {
        for (int run = 0; run < RUNS; run++) {
            Random random = new Random(run);
            List<BillLine> lines = randomLines(random, refund -> {
                String currency = pick(random, "CNY", "CNY", "CNY", "HKD", "USD");
                return refund
                        ? new BillLine(REFUND, id(random, "o", true), id(random, "42", true), id(random, "r", true),
                        id(random, "503", true), amount(random, currency), currency,
                        pick(random, BillLine.State.SUCCEEDED, BillLine.State.PROCESSING, BillLine.State.FAILED), 0)
                        : new BillLine(PAYMENT, id(random, "o", true), id(random, "42", true), null, null,
                        amount(random, currency), currency,
                        pick(random, BillLine.State.SUCCEEDED, BillLine.State.SUCCEEDED, BillLine.State.REVOKED), 0);
            });
            BillFiles.WxOptions options = BillFiles.WxOptions.standard()
                    .layout(random.nextBoolean() ? BillFiles.WxLayout.CURRENT : BillFiles.WxLayout.LEGACY)
                    .bom(random.nextBoolean()).crlf(random.nextBoolean());
            BillFiles.WxFile file = BillFiles.wxPay(lines, options);
            List<BillLine> read = new ArrayList<>();
            BillTotals totals = random.nextBoolean()
                    ? WxPayTradeBill.readGzip(new ByteArrayInputStream(file.gzip()), file.sha1Hex(), read::add)
                    : WxPayTradeBill.readPlain(new ByteArrayInputStream(file.text()), file.sha1Hex(), read::add);
            assertReadBack(read, totals, lines, 2, "seed " + run + ", " + options);
        }
    }

    @Test
    void alipay() throws Exception {
        for (int run = 0; run < RUNS; run++) {
            Random random = new Random(run);
            List<BillLine> lines = randomLines(random, refund -> new BillLine(refund ? REFUND : PAYMENT,
                    id(random, "o", true), id(random, "2026", false), refund ? id(random, "r", true) : null, null,
                    amount(random, "CNY"), "CNY", BillLine.State.SUCCEEDED, 0));
            BillFiles.AlipayOptions options = BillFiles.AlipayOptions.standard().crlf(random.nextBoolean())
                    .merchantDiscount(random.nextBoolean() ? BigDecimal.valueOf(random.nextInt(500), 2)
                            : BigDecimal.ZERO.setScale(2));
            List<BillLine> read = new ArrayList<>();
            BillTotals totals = AlipayTradeBill.read(new ByteArrayInputStream(BillFiles.alipay(lines, options)),
                    read::add);
            assertReadBack(read, totals, lines, 6, "seed " + run + ", " + options);
        }
    }

    @Test
    void stripe() throws Exception {
        for (int run = 0; run < RUNS; run++) {
            Random random = new Random(run);
            List<BillFiles.StripeItem> items = new ArrayList<>();
            List<BillLine> expected = new ArrayList<>();
            int count = random.nextInt(40);
            int pageSize = 1 + random.nextInt(10);
            for (int i = 0; i < count; i++) {
                long position = i % pageSize + 1;
                if (random.nextInt(6) == 0) {
                    items.add(random.nextBoolean()
                            ? new BillFiles.StripeOther("partial_capture_reversal", "refund", "re_pcr" + i, -100, "usd")
                            : new BillFiles.StripeOther("fee", "stripe_fee", "po_" + i, -50, "usd"));
                    continue;
                }
                String currency = pick(random, "USD", "EUR", "JPY", "GBP");
                String trade = random.nextBoolean() ? "pi_" + i : "ch_" + i;
                BillLine line = random.nextInt(3) == 0
                        ? new BillLine(REFUND, id(random, "o", true), trade, id(random, "r", true), "re_" + i,
                        amount(random, currency), currency,
                        pick(random, BillLine.State.SUCCEEDED, BillLine.State.PROCESSING, BillLine.State.FAILED),
                        position)
                        : new BillLine(PAYMENT, id(random, "o", true), trade, null, null, amount(random, currency),
                        currency, BillLine.State.SUCCEEDED, position);
                expected.add(line);
                items.add(currency.equals("USD") || random.nextBoolean()
                        ? new BillFiles.StripeMovement(line)
                        : new BillFiles.StripeMovement(line, "USD", new BigDecimal("1.1")));
            }
            List<BillLine> read = new ArrayList<>();
            int transactions = 0;
            List<byte[]> pages = BillFiles.stripePages(items, pageSize);
            for (int p = 0; p < pages.size(); p++) {
                StripeBalanceTransactions.Page page = StripeBalanceTransactions.readPage(
                        new ByteArrayInputStream(pages.get(p)), read::add);
                assertThat(page.hasMore()).as("seed %d page %d", run, p).isEqualTo(p < pages.size() - 1);
                transactions += page.count();
            }
            assertThat(transactions).isEqualTo(count);
            assertThat(read).as("seed %d", run).isEqualTo(expected);
        }
    }

    /** Up to 39 lines, about a third of them refunds. */
    private static List<BillLine> randomLines(Random random, Function<Boolean, BillLine> line) {
        List<BillLine> lines = new ArrayList<>();
        int count = random.nextInt(40);
        for (int i = 0; i < count; i++) {
            lines.add(line.apply(random.nextInt(3) == 0));
        }
        return lines;
    }

    private static void assertReadBack(List<BillLine> read, BillTotals totals, List<BillLine> written, long firstLine,
                                       String description) {
        assertThat(read).as(description).isEqualTo(WxPayTradeBillTest.numbered(written, firstLine));
        BillTotals expected = BillTotals.EMPTY;
        for (BillLine line : written) {
            expected = expected.plus(line);
        }
        assertThat(totals).as(description).isEqualTo(expected);
    }

    /** An amount the currency can hold, up to about 100,000.00, zero included. */
    private static BigDecimal amount(Random random, String currency) {
        long units = random.nextInt(10) == 0 ? 0 : random.nextInt(10_000_000);
        return currency.equals("JPY") ? BigDecimal.valueOf(units / 100).setScale(2) : BigDecimal.valueOf(units, 2);
    }

    private static String id(Random random, String prefix, boolean nullable) {
        if (nullable && random.nextInt(8) == 0) {
            return null;
        }
        return prefix + Long.toString(random.nextLong() & Long.MAX_VALUE, 36);
    }

    @SafeVarargs
    private static <T> T pick(Random random, T... values) {
        return values[random.nextInt(values.length)];
    }
}
