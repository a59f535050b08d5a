package io.paycallback.statement.bill;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.paycallback.trade.InvalidMoney;
import io.paycallback.trade.Money;

import java.io.BufferedOutputStream;
import java.io.BufferedWriter;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.NoSuchElementException;
import java.util.zip.Deflater;
import java.util.zip.GZIPOutputStream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

/**
 * Writes bills in the providers' exact formats from {@link BillLine}s, for parser tests, fake provider endpoints and
 * the bench. Every writer streams: lines come from an iterator and go to an OutputStream, so a million-line bill is
 * never held. Knobs break a file the ways a download goes wrong (wrong totals, a cut file).
 *
 * <p>Only what a line carries is real; the other columns hold fixed plausible values (time, appid, payer).
 */
public final class BillFiles {

    private static final BigDecimal ZERO = BigDecimal.ZERO.setScale(2);

    private BillFiles() {
    }

    // ---------------------------------------------------------------- WeChat Pay

    public enum WxLayout {
        /** The 27-column ALL layout with 应结订单金额, 订单金额 and 申请退款金额. */
        CURRENT,
        /** The early 24-column layout with 总金额 and 代金券或立减优惠金额, which some merchants still get. */
        LEGACY
    }

    /**
     * @param countDelta      added to the summary's 总交易单数
     * @param orderSumDelta   added to the summary's order total (订单总金额, legacy 总交易额)
     * @param refundSumDelta  added to the summary's requested refund total (申请退款总金额, legacy 总退款金额)
     * @param cut             the file stops after the detail lines: no summary header, no summary line
     */
    public record WxOptions(WxLayout layout, boolean bom, boolean crlf, long countDelta, BigDecimal orderSumDelta,
                            BigDecimal refundSumDelta, boolean cut) {

        public static WxOptions standard() {
            return new WxOptions(WxLayout.CURRENT, false, false, 0, ZERO, ZERO, false);
        }

        public WxOptions layout(WxLayout value) {
            return new WxOptions(value, bom, crlf, countDelta, orderSumDelta, refundSumDelta, cut);
        }

        public WxOptions bom(boolean value) {
            return new WxOptions(layout, value, crlf, countDelta, orderSumDelta, refundSumDelta, cut);
        }

        public WxOptions crlf(boolean value) {
            return new WxOptions(layout, bom, value, countDelta, orderSumDelta, refundSumDelta, cut);
        }

        public WxOptions wrongCount(long delta) {
            return new WxOptions(layout, bom, crlf, delta, orderSumDelta, refundSumDelta, cut);
        }

        public WxOptions wrongOrderSum(BigDecimal delta) {
            return new WxOptions(layout, bom, crlf, countDelta, delta, refundSumDelta, cut);
        }

        public WxOptions wrongRefundSum(BigDecimal delta) {
            return new WxOptions(layout, bom, crlf, countDelta, orderSumDelta, delta, cut);
        }

        public WxOptions withoutSummary() {
            return new WxOptions(layout, bom, crlf, countDelta, orderSumDelta, refundSumDelta, true);
        }
    }

    /** What a writer wrote: the SHA-1 (lower-case hex) of the uncompressed text, as WeChat states it, and the lines. */
    public record Written(String sha1Hex, long lines) {
    }

    /** A whole WeChat bill in memory, both as downloaded without tar_type and with tar_type=GZIP. */
    public record WxFile(byte[] text, byte[] gzip, String sha1Hex) {
    }

    static final String WX_HEADER = "交易时间,公众账号ID,商户号,特约商户号,设备号,微信订单号,商户订单号,用户标识,交易类型,交易状态,"
            + "付款银行,货币种类,应结订单金额,代金券金额,微信退款单号,商户退款单号,退款金额,充值券退款金额,退款类型,退款状态,商品名称,"
            + "商户数据包,手续费,费率,订单金额,申请退款金额,费率备注";
    static final String WX_SUMMARY = "总交易单数,应结订单总金额,退款总金额,充值券退款总金额,手续费总金额,订单总金额,申请退款总金额";
    static final String WX_LEGACY_HEADER = "交易时间,公众账号ID,商户号,子商户号,设备号,微信订单号,商户订单号,用户标识,交易类型,"
            + "交易状态,付款银行,货币种类,总金额,代金券或立减优惠金额,微信退款单号,商户退款单号,退款金额,代金券或立减优惠退款金额,"
            + "退款类型,退款状态,商品名称,商户数据包,手续费,费率";
    static final String WX_LEGACY_SUMMARY = "总交易单数,总交易额,总退款金额,总代金券或立减优惠退款金额,手续费总金额";

    public static WxFile wxPay(List<BillLine> lines, WxOptions options) {
        try {
            ByteArrayOutputStream text = new ByteArrayOutputStream();
            Written written = wxPay(lines.iterator(), options, text);
            ByteArrayOutputStream gzip = new ByteArrayOutputStream();
            try (GZIPOutputStream out = new GZIPOutputStream(gzip)) {
                text.writeTo(out);
            }
            return new WxFile(text.toByteArray(), gzip.toByteArray(), written.sha1Hex());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The bill as WeChat serves it with tar_type=GZIP; the hash is over the uncompressed text. Closes nothing. */
    public static Written wxPayGzip(Iterator<BillLine> lines, WxOptions options, OutputStream out) throws IOException {
        // The fastest deflate level: the bench writes million-line bills, and the reader does not care how well
        // they were compressed.
        GZIPOutputStream gzip = new GZIPOutputStream(new NonClosing(out), 1 << 16) {
            {
                def.setLevel(Deflater.BEST_SPEED);
            }
        };
        Written written = wxPay(lines, options, gzip);
        gzip.finish();
        return written;
    }

    /** The bill as WeChat serves it without tar_type. Closes nothing. */
    public static Written wxPay(Iterator<BillLine> lines, WxOptions options, OutputStream out) throws IOException {
        MessageDigest sha1 = sha1();
        Writer w = new BufferedWriter(new OutputStreamWriter(
                new DigestOutputStream(new NonClosing(out), sha1), StandardCharsets.UTF_8), 1 << 16);
        boolean legacy = options.layout() == WxLayout.LEGACY;
        String eol = options.crlf() ? "\r\n" : "\n";
        if (options.bom()) {
            w.write('\uFEFF');
        }
        w.write(legacy ? WX_LEGACY_HEADER : WX_HEADER);
        w.write(eol);
        long count = 0;
        BigDecimal orders = ZERO;
        BigDecimal refunds = ZERO;
        StringBuilder row = new StringBuilder(320);
        while (lines.hasNext()) {
            BillLine line = lines.next();
            boolean refund = line.kind() == BillLine.Kind.REFUND;
            String amount = line.amount().toPlainString();
            row.setLength(0);
            field(row, "2026-12-02 10:00:00");
            field(row, "wxd678efh567hg6787");
            field(row, "1900000109");
            field(row, "0");
            field(row, "");
            field(row, nullToEmpty(line.providerTradeNo()));
            field(row, nullToEmpty(line.outTradeNo()));
            field(row, "oUpF8uMuAJO_M2pxb1Q9zNjWeS6o");
            field(row, "NATIVE");
            field(row, refund ? "REFUND" : line.state() == BillLine.State.REVOKED ? "REVOKED" : "SUCCESS");
            field(row, "OTHERS");
            field(row, line.currency());
            field(row, refund ? "0.00" : amount);
            field(row, "0.00");
            field(row, refund ? nullToEmpty(line.providerRefundNo()) : "0");
            field(row, refund ? nullToEmpty(line.refundNo()) : "0");
            field(row, refund ? amount : "0.00");
            field(row, "0.00");
            field(row, refund ? "ORIGINAL" : "");
            field(row, refund ? wxRefundStatus(line.state()) : "");
            // A comma inside a field, as goods names have: the reader must split on ",`" only.
            field(row, "bill test, item");
            field(row, "");
            field(row, "0.00000");
            field(row, "0.60%");
            if (!legacy) {
                field(row, refund ? "0.00" : amount);
                field(row, refund ? amount : "0.00");
                field(row, "");
            }
            row.setLength(row.length() - 1);
            w.append(row).append(eol);
            count++;
            if (refund) {
                refunds = refunds.add(line.amount());
            } else {
                orders = orders.add(line.amount());
            }
        }
        if (!options.cut()) {
            w.write(legacy ? WX_LEGACY_SUMMARY : WX_SUMMARY);
            w.write(eol);
            String countText = Long.toString(count + options.countDelta());
            String orderText = orders.add(options.orderSumDelta()).toPlainString();
            String refundText = refunds.add(options.refundSumDelta()).toPlainString();
            row.setLength(0);
            if (legacy) {
                field(row, countText);
                field(row, orderText);
                field(row, refundText);
                field(row, "0.00");
                field(row, "0.00000");
            } else {
                field(row, countText);
                field(row, orders.toPlainString());
                field(row, refunds.toPlainString());
                field(row, "0.00");
                field(row, "0.00000");
                field(row, orderText);
                field(row, refundText);
            }
            row.setLength(row.length() - 1);
            w.append(row).append(eol);
        }
        w.flush();
        return new Written(HexFormat.of().formatHex(sha1.digest()), count);
    }

    private static String wxRefundStatus(BillLine.State state) {
        return switch (state) {
            case SUCCEEDED -> "SUCCESS";
            case PROCESSING -> "PROCESSING";
            case FAILED -> "ABNORMAL";
            case REVOKED -> throw new IllegalArgumentException("a refund is never REVOKED");
        };
    }

    private static void field(StringBuilder row, String value) {
        row.append('`').append(value).append(',');
    }

    // ---------------------------------------------------------------- Alipay

    /**
     * @param paymentCountDelta added to the N of {@code #交易合计}
     * @param paymentSumDelta   added to its 商家实收
     * @param refundCountDelta  added to the N of {@code #退款合计}
     * @param refundSumDelta    added to its 商家实收退款 (a negative number)
     * @param cut               the detail entry stops after the table: no end marker, no 合计 lines
     * @param noDetailEntry     the ZIP holds only the 汇总 entry
     * @param merchantDiscount  商家优惠 on every payment larger than it: 商家实收 is then 订单金额 less this
     */
    public record AlipayOptions(long paymentCountDelta, BigDecimal paymentSumDelta, long refundCountDelta,
                                BigDecimal refundSumDelta, boolean cut, boolean noDetailEntry,
                                BigDecimal merchantDiscount, boolean crlf) {

        public static AlipayOptions standard() {
            return new AlipayOptions(0, ZERO, 0, ZERO, false, false, ZERO, false);
        }

        public AlipayOptions wrongPaymentCount(long delta) {
            return new AlipayOptions(delta, paymentSumDelta, refundCountDelta, refundSumDelta, cut, noDetailEntry,
                    merchantDiscount, crlf);
        }

        public AlipayOptions wrongPaymentSum(BigDecimal delta) {
            return new AlipayOptions(paymentCountDelta, delta, refundCountDelta, refundSumDelta, cut, noDetailEntry,
                    merchantDiscount, crlf);
        }

        public AlipayOptions wrongRefundCount(long delta) {
            return new AlipayOptions(paymentCountDelta, paymentSumDelta, delta, refundSumDelta, cut, noDetailEntry,
                    merchantDiscount, crlf);
        }

        public AlipayOptions wrongRefundSum(BigDecimal delta) {
            return new AlipayOptions(paymentCountDelta, paymentSumDelta, refundCountDelta, delta, cut, noDetailEntry,
                    merchantDiscount, crlf);
        }

        public AlipayOptions withoutTotals() {
            return new AlipayOptions(paymentCountDelta, paymentSumDelta, refundCountDelta, refundSumDelta, true,
                    noDetailEntry, merchantDiscount, crlf);
        }

        public AlipayOptions withoutDetailEntry() {
            return new AlipayOptions(paymentCountDelta, paymentSumDelta, refundCountDelta, refundSumDelta, cut, true,
                    merchantDiscount, crlf);
        }

        public AlipayOptions merchantDiscount(BigDecimal value) {
            return new AlipayOptions(paymentCountDelta, paymentSumDelta, refundCountDelta, refundSumDelta, cut,
                    noDetailEntry, value, crlf);
        }

        public AlipayOptions crlf(boolean value) {
            return new AlipayOptions(paymentCountDelta, paymentSumDelta, refundCountDelta, refundSumDelta, cut,
                    noDetailEntry, merchantDiscount, value);
        }
    }

    static final String ALIPAY_ACCOUNT = "20880211096256330156";
    static final String ALIPAY_DATE = "20261202";
    static final String ALIPAY_DETAIL_ENTRY = ALIPAY_ACCOUNT + "_" + ALIPAY_DATE + "_业务明细.csv";
    static final String ALIPAY_SUMMARY_ENTRY = ALIPAY_ACCOUNT + "_" + ALIPAY_DATE + "_业务明细(汇总).csv";
    static final String ALIPAY_HEADER = "支付宝交易号,商户订单号,业务类型,商品名称,创建时间,完成时间,门店编号,门店名称,操作员,终端号,"
            + "对方账户,订单金额（元）,商家实收（元）,支付宝红包（元）,集分宝（元）,支付宝优惠（元）,商家优惠（元）,券核销金额（元）,券名称,"
            + "商家红包消费金额（元）,卡消费金额（元）,退款批次号/请求号,服务费（元）,分润（元）,备注";

    public static byte[] alipay(List<BillLine> lines, AlipayOptions options) {
        try {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            alipay(lines.iterator(), options, out);
            return out.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The trade-bill ZIP: entry names and contents in GBK, the detail entry first. Closes nothing. */
    public static long alipay(Iterator<BillLine> lines, AlipayOptions options, OutputStream out) throws IOException {
        ZipOutputStream zip = new ZipOutputStream(new BufferedOutputStream(new NonClosing(out), 1 << 16),
                AlipayTradeBill.GBK);
        zip.setLevel(Deflater.BEST_SPEED);
        String eol = options.crlf() ? "\r\n" : "\n";
        long payments = 0;
        long refunds = 0;
        BigDecimal orderSum = ZERO;
        BigDecimal received = ZERO;
        BigDecimal discounts = ZERO;
        BigDecimal refundOrderSum = ZERO;
        BigDecimal refundReceived = ZERO;
        if (!options.noDetailEntry()) {
            zip.putNextEntry(new ZipEntry(ALIPAY_DETAIL_ENTRY));
        }
        Writer w = new BufferedWriter(new OutputStreamWriter(
                options.noDetailEntry() ? OutputStream.nullOutputStream() : new NonClosing(zip), AlipayTradeBill.GBK),
                1 << 16);
        w.write("#支付宝业务明细查询" + eol);
        w.write("#账号：[" + ALIPAY_ACCOUNT + "]" + eol);
        w.write("#起始日期：[2026年12月02日 00:00:00]   终止日期：[2026年12月03日 00:00:00]" + eol);
        w.write("#-----------------------------------------业务明细列表----------------------------------------" + eol);
        w.write(ALIPAY_HEADER + eol);
        StringBuilder row = new StringBuilder(320);
        while (lines.hasNext()) {
            BillLine line = lines.next();
            boolean refund = line.kind() == BillLine.Kind.REFUND;
            BigDecimal discount = !refund && line.amount().compareTo(options.merchantDiscount()) > 0
                    ? options.merchantDiscount() : ZERO;
            BigDecimal amount = refund ? line.amount().negate() : line.amount();
            BigDecimal net = amount.subtract(discount);
            row.setLength(0);
            row.append(nullToEmpty(line.providerTradeNo())).append("\t,");
            row.append(nullToEmpty(line.outTradeNo())).append("\t,");
            row.append(refund ? "退款" : "交易").append("\t,");
            row.append("账单测试,2026-12-02 10:55:16,2026-12-02 10:55:23,alipay_store\t,alipay_store\t,alipay\t,\t,");
            row.append("*津水(602***@qq.com)\t,");
            row.append(amount.toPlainString()).append(',');
            row.append(net.toPlainString()).append(',');
            row.append("0.00,0.00,0.00,");
            row.append(discount.signum() == 0 ? "0.00" : discount.toPlainString()).append(',');
            row.append("0.00,,0.00\t,0.00,");
            row.append(refund ? nullToEmpty(line.refundNo()) : "").append("\t,");
            row.append("0.00,0.00,账单测试");
            w.append(row).append(eol);
            if (refund) {
                refunds++;
                refundOrderSum = refundOrderSum.add(amount);
                refundReceived = refundReceived.add(net);
            } else {
                payments++;
                orderSum = orderSum.add(amount);
                received = received.add(net);
                discounts = discounts.add(discount);
            }
        }
        if (!options.cut()) {
            w.write("#-----------------------------------------业务明细列表结束------------------------------------" + eol);
            w.write("#交易合计：" + (payments + options.paymentCountDelta()) + "笔，商家实收共"
                    + received.add(options.paymentSumDelta()).toPlainString() + "元，商家优惠共"
                    + discounts.toPlainString() + "元" + eol);
            w.write("#退款合计：" + (refunds + options.refundCountDelta()) + "笔，商家实收退款共"
                    + refundReceived.add(options.refundSumDelta()).toPlainString() + "元，商家优惠退款共0.00元" + eol);
            w.write("#导出时间：[2026年12月03日 05:46:49]" + eol);
        }
        w.flush();
        if (!options.noDetailEntry()) {
            zip.closeEntry();
        }
        // The 汇总 entry's columns follow dax-pay's AlipayReconcileBillTotal; the reader never opens it.
        zip.putNextEntry(new ZipEntry(ALIPAY_SUMMARY_ENTRY));
        Writer s = new OutputStreamWriter(new NonClosing(zip), AlipayTradeBill.GBK);
        s.write("#支付宝业务汇总查询" + eol);
        s.write("#账号：[" + ALIPAY_ACCOUNT + "]" + eol);
        s.write("#起始日期：[2026年12月02日 00:00:00]   终止日期：[2026年12月03日 00:00:00]" + eol);
        s.write("#-----------------------------------------业务汇总列表----------------------------------------" + eol);
        s.write("门店编号,门店名称,交易订单总笔数,退款订单总笔数,订单金额（元）,商家实收（元）,支付宝优惠（元）,商家优惠（元）,"
                + "卡消费金额（元）,服务费（元）,分润（元）,实收净额（元）" + eol);
        BigDecimal net = received.add(refundReceived);
        s.write("合计,," + payments + "," + refunds + "," + orderSum.add(refundOrderSum).toPlainString() + ","
                + net.toPlainString() + ",0.00," + discounts.toPlainString() + ",0.00,0.00,0.00," + net.toPlainString()
                + eol);
        s.write("#-----------------------------------------业务汇总列表结束------------------------------------" + eol);
        s.write("#导出时间：[2026年12月03日 05:46:49]" + eol);
        s.flush();
        zip.closeEntry();
        zip.finish();
        zip.flush();
        return payments + refunds;
    }

    // ---------------------------------------------------------------- Stripe

    /** One balance transaction of a listing. */
    public sealed interface StripeItem permits StripeMovement, StripeOther {
    }

    /**
     * A charge or refund, from the line. The balance transaction's own amount is in {@code settlementCurrency},
     * converted at {@code exchangeRate} when it differs from the line's currency (a cross-currency charge).
     */
    public record StripeMovement(BillLine line, String settlementCurrency, BigDecimal exchangeRate) implements StripeItem {
        public StripeMovement(BillLine line) {
            this(line, line.currency(), BigDecimal.ONE);
        }
    }

    /**
     * A transaction of another category: a {@code partial_capture_reversal} (type refund, source a Refund) or
     * anything else (a fee, a payout).
     */
    public record StripeOther(String reportingCategory, String type, String sourceId, long amount, String currency)
            implements StripeItem {
    }

    /** Pages of at most {@code pageSize}; transaction ids run on across pages from txn_1. */
    public static List<byte[]> stripePages(List<? extends StripeItem> items, int pageSize) {
        List<byte[]> pages = new ArrayList<>();
        for (int start = 0; start < items.size() || start == 0; start += pageSize) {
            int end = Math.min(items.size(), start + pageSize);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            try {
                stripePage(items.subList(start, end), start, end < items.size(), out);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            pages.add(out.toByteArray());
            if (end >= items.size()) {
                break;
            }
        }
        return pages;
    }

    /** One page of {@code GET /v1/balance_transactions?expand[]=data.source}. Closes nothing. */
    public static void stripePage(List<? extends StripeItem> items, int firstIndex, boolean hasMore, OutputStream out)
            throws IOException {
        JsonFactory factory = new JsonFactory();
        factory.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
        try (JsonGenerator g = factory.createGenerator(out, JsonEncoding.UTF8)) {
            g.writeStartObject();
            g.writeStringField("object", "list");
            g.writeArrayFieldStart("data");
            int index = firstIndex;
            for (StripeItem item : items) {
                index++;
                g.writeStartObject();
                g.writeStringField("id", "txn_" + index);
                g.writeStringField("object", "balance_transaction");
                g.writeNumberField("created", 1764633600L + index);
                if (item instanceof StripeMovement movement) {
                    movement(g, movement);
                } else if (item instanceof StripeOther other) {
                    other(g, other);
                }
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeBooleanField("has_more", hasMore);
            g.writeStringField("url", "/v1/balance_transactions");
            g.writeEndObject();
        }
    }

    private static void movement(JsonGenerator g, StripeMovement movement) throws IOException {
        BillLine line = movement.line();
        boolean refund = line.kind() == BillLine.Kind.REFUND;
        long minor = minorUnits(line.amount(), line.currency());
        long settled = minorUnits(line.amount().multiply(movement.exchangeRate())
                .setScale(2, RoundingMode.HALF_EVEN), movement.settlementCurrency());
        long signed = refund ? -settled : settled;
        g.writeNumberField("amount", signed);
        g.writeStringField("currency", movement.settlementCurrency().toLowerCase(Locale.ROOT));
        if (!movement.settlementCurrency().equals(line.currency())) {
            g.writeNumberField("exchange_rate", movement.exchangeRate());
        } else {
            g.writeNullField("exchange_rate");
        }
        g.writeNumberField("fee", 0);
        g.writeNumberField("net", signed);
        g.writeStringField("reporting_category", refund ? "refund" : "charge");
        g.writeStringField("status", "available");
        g.writeStringField("type", refund ? "refund" : "charge");
        g.writeObjectFieldStart("source");
        String trade = line.providerTradeNo();
        boolean viaIntent = trade != null && trade.startsWith("pi_");
        if (refund) {
            g.writeStringField("id", line.providerRefundNo());
            g.writeStringField("object", "refund");
            g.writeNumberField("amount", minor);
            if (viaIntent) {
                g.writeStringField("charge", "ch_of_" + trade.substring(3));
                g.writeStringField("payment_intent", trade);
            } else {
                g.writeStringField("charge", trade);
                g.writeNullField("payment_intent");
            }
            g.writeStringField("currency", line.currency().toLowerCase(Locale.ROOT));
            g.writeObjectFieldStart("metadata");
            if (line.refundNo() != null) {
                g.writeStringField("out_refund_no", line.refundNo());
            }
            if (line.outTradeNo() != null) {
                g.writeStringField("out_trade_no", line.outTradeNo());
            }
            g.writeEndObject();
            g.writeStringField("status", stripeRefundStatus(line.state()));
        } else {
            g.writeStringField("id", viaIntent ? "ch_of_" + trade.substring(3) : trade);
            g.writeStringField("object", "charge");
            g.writeNumberField("amount", minor);
            g.writeNumberField("amount_captured", minor);
            g.writeBooleanField("captured", true);
            g.writeStringField("currency", line.currency().toLowerCase(Locale.ROOT));
            g.writeObjectFieldStart("metadata");
            if (line.outTradeNo() != null) {
                g.writeStringField("out_trade_no", line.outTradeNo());
            }
            g.writeEndObject();
            if (viaIntent) {
                g.writeStringField("payment_intent", trade);
            } else {
                g.writeNullField("payment_intent");
            }
            g.writeBooleanField("paid", true);
            g.writeStringField("status", "succeeded");
        }
        g.writeEndObject();
    }

    private static void other(JsonGenerator g, StripeOther other) throws IOException {
        g.writeNumberField("amount", other.amount());
        g.writeStringField("currency", other.currency().toLowerCase(Locale.ROOT));
        g.writeNumberField("fee", 0);
        g.writeNumberField("net", other.amount());
        g.writeStringField("reporting_category", other.reportingCategory());
        g.writeStringField("status", "available");
        g.writeStringField("type", other.type());
        g.writeObjectFieldStart("source");
        g.writeStringField("id", other.sourceId());
        g.writeStringField("object", other.sourceId().startsWith("re_") ? "refund" : "payout");
        g.writeNumberField("amount", Math.abs(other.amount()));
        g.writeStringField("currency", other.currency().toLowerCase(Locale.ROOT));
        g.writeStringField("status", "succeeded");
        g.writeEndObject();
    }

    private static String stripeRefundStatus(BillLine.State state) {
        return switch (state) {
            case SUCCEEDED -> "succeeded";
            case PROCESSING -> "pending";
            case FAILED -> "failed";
            case REVOKED -> throw new IllegalArgumentException("a refund is never REVOKED");
        };
    }

    private static long minorUnits(BigDecimal amount, String currency) {
        try {
            return Money.toMinorUnits(amount, currency);
        } catch (InvalidMoney e) {
            throw new IllegalArgumentException(amount + " " + currency + ": " + e.getMessage(), e);
        }
    }

    // ---------------------------------------------------------------- lines

    public enum Flavour {
        /** CNY; payments SUCCEEDED or REVOKED; refunds in every state; all four ids. */
        WXPAY,
        /** CNY; everything SUCCEEDED; no provider refund id (the bill has none). */
        ALIPAY,
        /** USD; payments by pi_ (or ch_); refunds by re_ in every state. */
        STRIPE
    }

    /**
     * A deterministic stream of {@code count} lines, about one in ten a refund, without holding them: for the bench's
     * million-line bills. Line numbers are 0: readers number lines themselves.
     */
    public static Iterator<BillLine> synthetic(long count, Flavour flavour) {
        return new Iterator<>() {
            private long i;

            @Override
            public boolean hasNext() {
                return i < count;
            }

            @Override
            public BillLine next() {
                if (i >= count) {
                    throw new NoSuchElementException();
                }
                long n = i++;
                BigDecimal amount = BigDecimal.valueOf(100 + (n * 7919) % 99_900, 2);
                boolean refund = n % 10 == 9;
                String order = "ord" + n;
                return switch (flavour) {
                    case WXPAY -> refund
                            ? new BillLine(BillLine.Kind.REFUND, order, "42000" + n, "rfd" + n, "50300" + n, amount,
                            "CNY", BillLine.State.SUCCEEDED, 0)
                            : new BillLine(BillLine.Kind.PAYMENT, order, "42000" + n, null, null, amount, "CNY",
                            BillLine.State.SUCCEEDED, 0);
                    case ALIPAY -> new BillLine(refund ? BillLine.Kind.REFUND : BillLine.Kind.PAYMENT, order,
                            "2026120222001" + n, refund ? "rfd" + n : null, null, amount, "CNY",
                            BillLine.State.SUCCEEDED, 0);
                    case STRIPE -> refund
                            ? new BillLine(BillLine.Kind.REFUND, order, "pi_" + n, "rfd" + n, "re_" + n, amount, "USD",
                            BillLine.State.SUCCEEDED, 0)
                            : new BillLine(BillLine.Kind.PAYMENT, order, "pi_" + n, null, null, amount, "USD",
                            BillLine.State.SUCCEEDED, 0);
                };
            }
        };
    }

    private static String nullToEmpty(String value) {
        return value == null ? "" : value;
    }

    private static MessageDigest sha1() {
        try {
            return MessageDigest.getInstance("SHA-1");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Lets a writer close or finish its own layers without closing the caller's stream. */
    private static final class NonClosing extends java.io.FilterOutputStream {
        NonClosing(OutputStream out) {
            super(out);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            out.write(b, off, len);
        }

        @Override
        public void close() throws IOException {
            flush();
        }
    }
}
