package io.paycallback.statement.bill;

import java.io.BufferedReader;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.math.BigDecimal;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.Charset;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.ZipEntry;
import java.util.zip.ZipException;
import java.util.zip.ZipInputStream;

/**
 * Reads Alipay's trade bill ({@code alipay.data.dataservice.bill.downloadurl.query}, bill_type trade): a ZIP whose
 * entry names and contents are GBK, holding {@code <pid>0156_<date>_业务明细.csv} and {@code …_业务明细(汇总).csv}. Only
 * the first is read: it has one line per payment (业务类型 交易) and per refund (退款), wrapped in {@code #} comment
 * lines that end with the file's totals.
 *
 * <p>Integrity: {@code #交易合计：N笔，商家实收共X元，商家优惠共Y元} and {@code #退款合计：N笔，商家实收退款共-X元，商家优惠退款共-Y元}
 * total the 商家实收（元） and 商家优惠（元） columns of the 交易 and 退款 lines (refund amounts are negative in the file and
 * in the totals). The lines' own amounts are 订单金额（元）, what the payer was charged and what our ledger holds; it
 * differs from 商家实收 by the discounts, so the totals are checked against the columns they name and never against
 * 订单金额. Evidence: the real bill of 2019-09-16 quoted in AlipayGeneralPaymentHandlerTest (six 交易 lines of 0.01,
 * four 退款 lines of -0.01: 交易合计 6笔 0.06元, 退款合计 4笔 -0.04元).
 */
public final class AlipayTradeBill {

    static final Charset GBK = Charset.forName("GBK");
    static final String DETAIL_SUFFIX = "_业务明细.csv";
    static final String CURRENCY = "CNY";

    private static final Pattern PAYMENTS = Pattern.compile(
            "^#交易合计：(\\d+)笔，商家实收共(-?[\\d,]+(?:\\.\\d+)?)元(?:，商家优惠共(-?[\\d,]+(?:\\.\\d+)?)元)?");
    private static final Pattern REFUNDS = Pattern.compile(
            "^#退款合计：(\\d+)笔，商家实收退款共(-?[\\d,]+(?:\\.\\d+)?)元(?:，商家优惠退款共(-?[\\d,]+(?:\\.\\d+)?)元)?");

    private AlipayTradeBill() {
    }

    /**
     * @param zip the downloaded file as it came
     * @throws BillException.Incomplete when the detail entry or a 合计 line is missing, or the totals disagree
     * @throws BillException.Malformed  when a line or the layout is not Alipay's
     */
    public static BillTotals read(InputStream zip, BillSink sink) throws BillException, IOException {
        ZipInputStream entries = new ZipInputStream(zip, GBK);
        BillTotals totals = null;
        try {
            ZipEntry entry;
            while ((entry = entries.getNextEntry()) != null) {
                if (!entry.isDirectory() && entry.getName().endsWith(DETAIL_SUFFIX)) {
                    if (totals != null) {
                        throw new BillException.Malformed("two entries end in " + DETAIL_SUFFIX);
                    }
                    totals = detail(new BufferedReader(new InputStreamReader(entries, GBK.newDecoder()), 1 << 16), sink);
                }
            }
        } catch (EOFException e) {
            throw Fields.causedBy(new BillException.Incomplete("the ZIP ends early: " + e.getMessage()), e);
        } catch (ZipException e) {
            throw Fields.causedBy(new BillException.Malformed("not a readable ZIP: " + e.getMessage()), e);
        } catch (CharacterCodingException e) {
            throw Fields.causedBy(new BillException.Malformed("the detail entry is not GBK"), e);
        }
        if (totals == null) {
            throw new BillException.Incomplete("the ZIP has no entry ending in " + DETAIL_SUFFIX);
        }
        return totals;
    }

    private static BillTotals detail(BufferedReader in, BillSink sink) throws BillException, IOException {
        long number = 0;
        String text;
        do {
            text = in.readLine();
            number++;
            if (text == null) {
                throw new BillException.Incomplete("the detail entry ends before its header");
            }
            text = Fields.stripBom(text);
        } while (text.isBlank() || text.startsWith("#"));
        Layout layout = Layout.of(Fields.header(text));
        Fields fields = new Fields();
        Side payments = new Side();
        Side refunds = new Side();
        BillTotals totals = BillTotals.EMPTY;
        while ((text = in.readLine()) != null) {
            number++;
            if (text.startsWith("#")) {
                break;
            }
            if (text.isBlank()) {
                continue;
            }
            fields.splitCsv(text, number);
            if (fields.count() != layout.width) {
                throw new BillException.Malformed("line " + number + ": " + fields.count() + " fields, the header has "
                        + layout.width);
            }
            BillLine line = layout.line(fields, payments, refunds);
            totals = totals.plus(line);
            sink.accept(line);
        }
        Matcher paymentTotals = null;
        Matcher refundTotals = null;
        for (; text != null; text = in.readLine()) {
            if (text.isBlank()) {
                continue;
            }
            if (!text.startsWith("#")) {
                throw new BillException.Malformed("a table line after the table's end");
            }
            Matcher m = PAYMENTS.matcher(text);
            if (m.find()) {
                paymentTotals = m;
                continue;
            }
            m = REFUNDS.matcher(text);
            if (m.find()) {
                refundTotals = m;
            }
        }
        if (paymentTotals == null || refundTotals == null) {
            throw new BillException.Incomplete("the detail entry lacks its "
                    + (paymentTotals == null ? "#交易合计" : "#退款合计") + " line: the file was cut");
        }
        payments.check(paymentTotals, "交易合计");
        refunds.check(refundTotals, "退款合计");
        return totals;
    }

    /** The lines of one 业务类型, summed the way the 合计 line states them. */
    private static final class Side {
        long count;
        BigDecimal received = BigDecimal.ZERO;
        BigDecimal discount = BigDecimal.ZERO;

        void check(Matcher stated, String what) throws BillException.Incomplete {
            long statedCount = Long.parseLong(stated.group(1));
            if (statedCount != count) {
                throw new BillException.Incomplete(what + " says " + statedCount + "笔, the table has " + count);
            }
            compare(stated.group(2), received, what + " 商家实收");
            if (stated.group(3) != null) {
                compare(stated.group(3), discount, what + " 商家优惠");
            }
        }

        private static void compare(String stated, BigDecimal sum, String what) throws BillException.Incomplete {
            BigDecimal value = new BigDecimal(stated.replace(",", ""));
            if (value.compareTo(sum) != 0) {
                throw new BillException.Incomplete(what + " is " + value + ", the table's lines add up to " + sum);
            }
        }
    }

    /** Where the columns a line needs sit, per the entry's own header. */
    private record Layout(int width, int tradeNo, int outTradeNo, int type, int orderAmount, int received,
                          int discount, int requestNo) {

        static final String ORDER_AMOUNT = "订单金额（元）";
        static final String RECEIVED = "商家实收（元）";
        static final String DISCOUNT = "商家优惠（元）";

        static Layout of(java.util.List<String> header) throws BillException.Malformed {
            Map<String, Integer> at = Fields.positions(header, "the detail header");
            String what = "the detail header";
            return new Layout(header.size(),
                    Fields.required(at, "支付宝交易号", what),
                    Fields.required(at, "商户订单号", what),
                    Fields.required(at, "业务类型", what),
                    Fields.required(at, ORDER_AMOUNT, what),
                    Fields.required(at, RECEIVED, what),
                    Fields.firstOf(at, DISCOUNT),
                    Fields.required(at, "退款批次号/请求号", what));
        }

        BillLine line(Fields f, Side payments, Side refunds) throws BillException.Malformed {
            String kind = f.get(type);
            Side side;
            BillLine.Kind lineKind;
            if (kind.equals("交易")) {
                side = payments;
                lineKind = BillLine.Kind.PAYMENT;
            } else if (kind.equals("退款")) {
                side = refunds;
                lineKind = BillLine.Kind.REFUND;
            } else {
                throw new BillException.Malformed("line " + f.line() + ": 业务类型 '" + kind + "' is neither 交易 nor 退款");
            }
            BigDecimal amount = Fields.ledger(f.decimal(orderAmount, ORDER_AMOUNT), f.line(), ORDER_AMOUNT);
            // A payment is positive and a refund negative in the file; the other sign is not a line Alipay writes.
            if (amount.signum() != 0 && (amount.signum() < 0) != (lineKind == BillLine.Kind.REFUND)) {
                throw new BillException.Malformed("line " + f.line() + ": " + ORDER_AMOUNT + " " + amount
                        + " has the wrong sign for " + kind);
            }
            side.count++;
            side.received = side.received.add(f.decimal(received, RECEIVED));
            if (discount >= 0) {
                side.discount = side.discount.add(f.decimal(discount, DISCOUNT));
            }
            String refundNo = lineKind == BillLine.Kind.REFUND ? f.optional(requestNo) : null;
            return new BillLine(lineKind, f.optional(outTradeNo), f.optional(tradeNo), refundNo, null, amount.abs(),
                    CURRENCY, BillLine.State.SUCCEEDED, f.line());
        }
    }
}
