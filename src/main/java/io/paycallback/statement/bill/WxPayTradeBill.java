package io.paycallback.statement.bill;

import java.io.BufferedReader;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.math.BigDecimal;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.zip.GZIPInputStream;
import java.util.zip.ZipException;

/**
 * Reads a WeChat Pay v3 trade bill ({@code GET /v3/bill/tradebill}, bill_type ALL, SUCCESS or REFUND, the current
 * layout or the legacy one) as it streams in.
 *
 * <p>The file is a plain header line, detail lines, a plain summary header starting with 总交易单数 and one summary
 * line; every field of a detail or summary line starts with a backtick. Columns are found by header name, never by
 * position, because WeChat has changed the layout before (the legacy one has 总金额 where the current one has
 * 应结订单金额 and 订单金额).
 *
 * <p>Integrity: the summary is the column sums of every detail line, payments and refunds alike. 总交易单数 is the
 * number of detail lines of all kinds, and each summary amount is the sum of the detail column of the same meaning
 * ({@link #TOTALLED}). Payment lines carry 0.00 in the refund columns and refund lines 0.00 in the order columns, so
 * the order totals are the payments' and the refund totals the refunds'. Evidence (bills from real merchant accounts
 * quoted in public code): dax-pay's WechatPayReconcileService sample of 2024-01-16 (one SUCCESS and two REFUND lines,
 * 总交易单数 3, 订单总金额 0.02, 申请退款总金额 0.02), a legacy ALL bill of 2018-05-07 (nine SUCCESS and one REFUND
 * line, 总交易单数 10, 总交易额 2400.09, 总退款金额 0.02) and gunsluo/wechatpay-go's REFUND bill (two REFUND lines,
 * 总交易单数 2).
 */
public final class WxPayTradeBill {

    static final String SUMMARY_START = "总交易单数";

    /** Summary columns and the detail column each one totals; a pair is checked when the file has both columns. */
    static final Map<String, String> TOTALLED = Map.of(
            "订单总金额", "订单金额",
            "应结订单总金额", "应结订单金额",
            "申请退款总金额", "申请退款金额",
            "退款总金额", "退款金额",
            "总交易额", "总金额",
            "总退款金额", "退款金额");

    private WxPayTradeBill() {
    }

    /**
     * @param decompressedUtf8 the bill as WeChat made it (after gunzip), UTF-8, with or without a BOM, LF or CRLF
     * @return the totals of the lines handed to the sink
     * @throws BillException.Incomplete when the summary is missing or disagrees with the lines
     * @throws BillException.Malformed  when a line or the layout is not WeChat's
     */
    public static BillTotals read(InputStream decompressedUtf8, BillSink sink) throws BillException, IOException {
        BufferedReader in = new BufferedReader(
                new InputStreamReader(decompressedUtf8, StandardCharsets.UTF_8.newDecoder()), 1 << 16);
        try {
            return parse(in, sink);
        } catch (EOFException e) {
            throw Fields.causedBy(new BillException.Incomplete("the file ends early: " + e.getMessage()), e);
        } catch (CharacterCodingException e) {
            throw Fields.causedBy(new BillException.Malformed("the file is not UTF-8"), e);
        } catch (ZipException e) {
            throw Fields.causedBy(new BillException.Malformed("the file is not valid gzip: " + e.getMessage()), e);
        }
    }

    /**
     * Reads a bill downloaded with {@code tar_type=GZIP}: WeChat states the SHA-1 of the decompressed file, so the
     * digest is taken over what {@link #read} parses. Lines reach the sink before the digest is known; the call then
     * throws {@link BillException.Tampered}, and the caller must drop what the sink kept.
     *
     * @param sha1Hex the answer's {@code hash_value}, in either case
     */
    public static BillTotals readGzip(InputStream gzip, String sha1Hex, BillSink sink) throws BillException, IOException {
        byte[] expected = sha1(sha1Hex);
        InputStream inflated;
        try {
            inflated = new GZIPInputStream(gzip, 1 << 16);
        } catch (EOFException e) {
            throw new BillException.Incomplete("the file is empty or ends inside the gzip header");
        } catch (ZipException e) {
            throw new BillException.Malformed("the file is not gzip: " + e.getMessage());
        }
        return verified(inflated, expected, sink);
    }

    /** {@link #readGzip} for a bill downloaded without {@code tar_type}: the same digest, over the bytes as they come. */
    public static BillTotals readPlain(InputStream decompressedUtf8, String sha1Hex, BillSink sink)
            throws BillException, IOException {
        return verified(decompressedUtf8, sha1(sha1Hex), sink);
    }

    private static BillTotals verified(InputStream decompressed, byte[] expected, BillSink sink)
            throws BillException, IOException {
        MessageDigest digest = newSha1();
        DigestInputStream digesting = new DigestInputStream(decompressed, digest);
        BillTotals totals;
        try {
            totals = read(digesting, sink);
        } catch (BillException e) {
            // A bill that does not parse may simply not be the bill WeChat made: say so when the digest tells.
            if (drainQuietly(digesting) && !MessageDigest.isEqual(digest.digest(), expected)) {
                BillException tampered = new BillException.Tampered(
                        "the SHA-1 of the file is not the stated hash_value (and it did not parse: " + e.getMessage() + ")");
                tampered.addSuppressed(e);
                throw tampered;
            }
            throw e;
        }
        // read() stops at the end of the text, which is the end of the stream; drain anyway so nothing escapes the digest.
        digesting.transferTo(OutputStream.nullOutputStream());
        if (!MessageDigest.isEqual(digest.digest(), expected)) {
            throw new BillException.Tampered("the SHA-1 of the decompressed file is not the stated hash_value");
        }
        return totals;
    }

    private static boolean drainQuietly(InputStream in) {
        try {
            in.transferTo(OutputStream.nullOutputStream());
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static byte[] sha1(String hex) throws BillException.Malformed {
        if (hex == null || hex.length() != 40) {
            throw new BillException.Malformed("the stated SHA-1 is not 40 hex digits");
        }
        try {
            return HexFormat.of().parseHex(hex.toLowerCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new BillException.Malformed("the stated SHA-1 is not 40 hex digits");
        }
    }

    private static MessageDigest newSha1() {
        try {
            return MessageDigest.getInstance("SHA-1");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-1", e);
        }
    }

    private static BillTotals parse(BufferedReader in, BillSink sink) throws BillException, IOException {
        String headerLine = in.readLine();
        if (headerLine == null) {
            throw new BillException.Incomplete("the file is empty");
        }
        headerLine = Fields.stripBom(headerLine);
        if (headerLine.startsWith("`")) {
            throw new BillException.Malformed("line 1: the header starts with a backtick, so it is not a header");
        }
        Layout layout = Layout.of(Fields.header(headerLine));
        Fields fields = new Fields();
        BigDecimal[] sums = new BigDecimal[layout.summed.size()];
        Arrays.fill(sums, BigDecimal.ZERO);
        BillTotals totals = BillTotals.EMPTY;
        long lines = 0;
        long number = 1;
        String text;
        while (true) {
            text = in.readLine();
            number++;
            if (text == null) {
                throw new BillException.Incomplete("no summary after " + lines + " detail lines: the file was cut");
            }
            if (text.isBlank()) {
                continue;
            }
            if (text.startsWith(SUMMARY_START)) {
                break;
            }
            fields.splitBackticked(text, number);
            if (fields.count() != layout.width) {
                throw new BillException.Malformed("line " + number + ": " + fields.count() + " fields, the header has "
                        + layout.width);
            }
            for (int i = 0; i < sums.length; i++) {
                Summed column = layout.summed.get(i);
                sums[i] = sums[i].add(fields.decimal(column.index, column.name));
            }
            BillLine line = layout.line(fields);
            lines++;
            totals = totals.plus(line);
            sink.accept(line);
        }
        Map<String, Integer> summary = Fields.positions(Fields.header(text), "the summary header");
        long summaryNumber = number;
        String values;
        do {
            values = in.readLine();
            summaryNumber++;
        } while (values != null && values.isBlank());
        if (values == null) {
            throw new BillException.Incomplete("the summary header has no summary line: the file was cut");
        }
        fields.splitBackticked(values, summaryNumber);
        if (fields.count() != summary.size()) {
            throw new BillException.Malformed("line " + summaryNumber + ": " + fields.count()
                    + " summary fields, the summary header has " + summary.size());
        }
        String rest;
        while ((rest = in.readLine()) != null) {
            if (!rest.isBlank()) {
                throw new BillException.Malformed("text after the summary line");
            }
        }
        long stated = fields.whole(Fields.required(summary, SUMMARY_START, "the summary"), SUMMARY_START);
        if (stated != lines) {
            throw new BillException.Incomplete("the summary says " + stated + " lines, the file has " + lines);
        }
        layout.requireTotalsFor(summary);
        for (int i = 0; i < sums.length; i++) {
            Summed column = layout.summed.get(i);
            Integer at = summary.get(column.summaryName);
            if (at == null) {
                continue;
            }
            BigDecimal statedSum = fields.decimal(at, column.summaryName);
            if (statedSum.compareTo(sums[i]) != 0) {
                throw new BillException.Incomplete("the summary's " + column.summaryName + " is " + statedSum
                        + ", the lines' " + column.name + " add up to " + sums[i]);
            }
        }
        return totals;
    }

    /** A detail column whose sum the summary states under {@code summaryName}. */
    private record Summed(String name, int index, String summaryName) {
    }

    /** Where the columns a line needs sit, per the file's own header. */
    private record Layout(int width, int state, int outTradeNo, int tradeNo, int refundNo, int providerRefundNo,
                          int refundStatus, int currency, int paymentAmount, String paymentColumn, int refundAmount,
                          String refundColumn, List<Summed> summed, Fields.Currencies currencies) {

        static Layout of(List<String> header) throws BillException.Malformed {
            Map<String, Integer> at = Fields.positions(header, "the header");
            String what = "the header";
            // 订单金额 is what the payer was charged; 应结订单金额 leaves out non-recharge coupons. Legacy files have
            // only 总金额. A refund is compared at what was asked: 申请退款金额 (legacy: 退款金额).
            String paymentColumn = at.containsKey("订单金额") ? "订单金额" : "总金额";
            int paymentAmount = Fields.required(at, paymentColumn, what);
            String refundColumn = at.containsKey("申请退款金额") ? "申请退款金额" : "退款金额";
            List<Summed> summed = new ArrayList<>();
            for (Map.Entry<String, String> pair : TOTALLED.entrySet()) {
                Integer index = at.get(pair.getValue());
                if (index != null) {
                    summed.add(new Summed(pair.getValue(), index, pair.getKey()));
                }
            }
            return new Layout(header.size(),
                    Fields.required(at, "交易状态", what),
                    Fields.required(at, "商户订单号", what),
                    Fields.required(at, "微信订单号", what),
                    Fields.firstOf(at, "商户退款单号"),
                    Fields.firstOf(at, "微信退款单号"),
                    Fields.firstOf(at, "退款状态"),
                    Fields.required(at, "货币种类", what),
                    paymentAmount, paymentColumn,
                    Fields.firstOf(at, refundColumn), refundColumn,
                    List.copyOf(summed), new Fields.Currencies());
        }

        /** The summary must total the columns the lines' amounts come from, or the check proves nothing. */
        void requireTotalsFor(Map<String, Integer> summary) throws BillException.Malformed {
            requireTotal(summary, paymentColumn);
            if (refundAmount >= 0) {
                requireTotal(summary, refundColumn);
            }
        }

        private void requireTotal(Map<String, Integer> summary, String detailColumn) throws BillException.Malformed {
            for (Summed column : summed) {
                if (column.name.equals(detailColumn) && summary.containsKey(column.summaryName)) {
                    return;
                }
            }
            throw new BillException.Malformed("the summary has no total of " + detailColumn);
        }

        BillLine line(Fields f) throws BillException.Malformed {
            long number = f.line();
            String currencyCode = currencies.code(f.get(currency), number);
            String status = f.get(state);
            return switch (status) {
                case "SUCCESS" -> payment(f, BillLine.State.SUCCEEDED, currencyCode);
                case "REVOKED" -> payment(f, BillLine.State.REVOKED, currencyCode);
                case "REFUND" -> refund(f, currencyCode);
                default -> throw new BillException.Malformed("line " + number + ": 交易状态 '" + status
                        + "' is none of SUCCESS, REFUND, REVOKED");
            };
        }

        private BillLine payment(Fields f, BillLine.State lineState, String currencyCode) throws BillException.Malformed {
            BigDecimal amount = positive(f, paymentAmount, paymentColumn);
            return new BillLine(BillLine.Kind.PAYMENT, f.optional(outTradeNo), f.optional(tradeNo), null, null,
                    amount, currencyCode, lineState, f.line());
        }

        private BillLine refund(Fields f, String currencyCode) throws BillException.Malformed {
            if (refundAmount < 0 || refundStatus < 0 || refundNo < 0 || providerRefundNo < 0) {
                throw new BillException.Malformed("line " + f.line() + ": a REFUND line in a bill without refund columns");
            }
            BigDecimal amount = positive(f, refundAmount, refundColumn);
            return new BillLine(BillLine.Kind.REFUND, f.optional(outTradeNo), f.optional(tradeNo), f.optional(refundNo),
                    f.optional(providerRefundNo), amount, currencyCode, refundState(f.get(refundStatus), f.line()),
                    f.line());
        }

        private static BigDecimal positive(Fields f, int index, String column) throws BillException.Malformed {
            BigDecimal amount = Fields.ledger(f.decimal(index, column), f.line(), column);
            if (amount.signum() < 0) {
                throw new BillException.Malformed("line " + f.line() + ": " + column + " is negative: " + amount);
            }
            return amount;
        }
    }

    /**
     * 退款状态 as the bill froze it. WeChat's vocabularies (v2 refund query and bill: SUCCESS, FAIL, PROCESSING,
     * NOTSURE, CHANGE, REFUNDCLOSE; v3 refund: SUCCESS, CLOSED, PROCESSING, ABNORMAL). NOTSURE ("未确定, 需要商户原退款单号
     * 重新发起") is not an outcome, so it reads as PROCESSING: the comparison then asks the refund query.
     */
    static BillLine.State refundState(String status, long line) throws BillException.Malformed {
        return switch (status) {
            case "SUCCESS" -> BillLine.State.SUCCEEDED;
            case "PROCESSING", "NOTSURE" -> BillLine.State.PROCESSING;
            case "FAIL", "FAILED", "CLOSED", "REFUNDCLOSE", "ABNORMAL", "CHANGE" -> BillLine.State.FAILED;
            default -> throw new BillException.Malformed("line " + line + ": 退款状态 '" + status + "' is not a known state");
        };
    }
}
