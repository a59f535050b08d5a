package io.paycallback.statement.bill;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import java.util.zip.ZipOutputStream;

import static io.paycallback.statement.bill.BillLine.Kind.PAYMENT;
import static io.paycallback.statement.bill.BillLine.Kind.REFUND;
import static io.paycallback.statement.bill.BillLine.State.SUCCEEDED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class AlipayTradeBillTest {

    /**
     * The 业务明细 of a real trade bill of 2019-09-16, re-typed from the public AlipayGeneralPaymentHandlerTest
     * (package com.payment.alipay.junit): six payments of 0.01, four refunds of -0.01 sharing their payment's
     * 支付宝交易号, TAB-suffixed ids (业务类型 too), and the 合计 lines.
     */
    static final String SAMPLE_2019 = String.join("\n",
            "#支付宝业务明细查询",
            "#账号：[20880211096256330156]",
            "#起始日期：[2019年09月16日 00:00:00]   终止日期：[2019年09月17日 00:00:00]",
            "#-----------------------------------------业务明细列表----------------------------------------",
            BillFiles.ALIPAY_HEADER,
            "2019091622001458860515315453\t,service_1568601259302\t,交易\t,下单测试,2019-09-16 10:55:16,2019-09-16 10:55:23,alipay_store\t,alipay_store\t,alipay\t,\t,*津水(602***@qq.com)\t,0.01,0.01,0.00,0.00,0.00,0.00,0.00,,0.00\t,0.00,\t,0.00,0.00,下单测试",
            "2019091622001458860515315453\t,service_1568601259302\t,退款\t,下单测试,2019-09-16 10:55:16,2019-09-16 10:56:48,alipay_store\t,alipay_store\t,alipay\t,\t,*津水(602***@qq.com)\t,-0.01,-0.01,0.00,0.00,0.00,0.00,0.00,,0.00\t,0.00,re_test_1568602607356\t,0.00,0.00,下单测试",
            "2019091622001458860513822558\t,service_1568603173853\t,交易\t,下单测试,2019-09-16 11:07:03,2019-09-16 11:07:09,alipay_store\t,alipay_store\t,alipay\t,\t,*津水(602***@qq.com)\t,0.01,0.01,0.00,0.00,0.00,0.00,0.00,,0.00\t,0.00,\t,0.00,0.00,下单测试",
            "2019091622001458860513822558\t,service_1568603173853\t,退款\t,下单测试,2019-09-16 11:07:03,2019-09-16 11:26:55,alipay_store\t,alipay_store\t,alipay\t,\t,*津水(602***@qq.com)\t,-0.01,-0.01,0.00,0.00,0.00,0.00,0.00,,0.00\t,0.00,re_test_1568604414433\t,0.00,0.00,下单测试",
            "2019091622001458860516395930\t,service_1568613406000\t,交易\t,下单测试,2019-09-16 13:57:42,2019-09-16 13:57:52,alipay_store\t,alipay_store\t,alipay\t,\t,*津水(602***@qq.com)\t,0.01,0.01,0.00,0.00,0.00,0.00,0.00,,0.00\t,0.00,\t,0.00,0.00,下单测试",
            "2019091622001458860516395930\t,service_1568613406000\t,退款\t,下单测试,2019-09-16 13:57:42,2019-09-16 14:15:12,alipay_store\t,alipay_store\t,alipay\t,\t,*津水(602***@qq.com)\t,-0.01,-0.01,0.00,0.00,0.00,0.00,0.00,,0.00\t,0.00,re_test_1568614511552\t,0.00,0.00,下单测试",
            "2019091622001458860516993488\t,qd_201909161455139634Sjad2vy\t,交易\t,RPC_GENERAL接口测试,2019-09-16 14:56:35,2019-09-16 14:57:19,alipay_store\t,alipay_store\t,alipay\t,\t,*津水(602***@qq.com)\t,0.01,0.01,0.00,0.00,0.00,0.00,0.00,,0.00\t,0.00,\t,0.00,0.00,RPC_GENERAL接口测试",
            "2019091622001458860516993488\t,qd_201909161455139634Sjad2vy\t,退款\t,RPC_GENERAL接口测试,2019-09-16 14:56:35,2019-09-16 15:00:38,alipay_store\t,alipay_store\t,alipay\t,\t,*津水(602***@qq.com)\t,-0.01,-0.01,0.00,0.00,0.00,0.00,0.00,,0.00\t,0.00,re_20190916150216125q8Lmiodp\t,0.00,0.00,RPC_GENERAL接口测试",
            "2019091622001465870515233238\t,20190916165659224L3VUQRL9\t,交易\t,千丁订单INSURANCE88100011909161658423172,2019-09-16 16:58:56,2019-09-16 16:58:58,\t,\t,\t,\t,*庚辰(182****01)\t,0.01,0.01,0.00,0.00,0.00,0.00,0.00,,0.00\t,0.00,\t,0.00,0.00,",
            "2019091622001458860517860493\t,qd_201909161844073417CB0wPzR\t,交易\t,RPC_GENERAL接口测试,2019-09-16 18:43:06,2019-09-16 18:43:34,alipay_store\t,alipay_store\t,alipay\t,\t,*津水(602***@qq.com)\t,0.01,0.01,0.00,0.00,0.00,0.00,0.00,,0.00\t,0.00,\t,0.00,0.00,RPC_GENERAL接口测试",
            "#-----------------------------------------业务明细列表结束------------------------------------",
            "#交易合计：6笔，商家实收共0.06元，商家优惠共0.00元",
            "#退款合计：4笔，商家实收退款共-0.04元，商家优惠退款共0.00元",
            "#导出时间：[2019年09月17日 05:46:49]",
            "");

    static final String SAMPLE_DETAIL = "20880211096256330156_20190916_业务明细.csv";
    static final String SAMPLE_SUMMARY = "20880211096256330156_20190916_业务明细(汇总).csv";

    @Test
    void publicSampleInAGbkZip() throws Exception {
        byte[] zip = zip(SAMPLE_SUMMARY, "#支付宝业务汇总查询\n", SAMPLE_DETAIL, SAMPLE_2019);
        List<BillLine> lines = new ArrayList<>();
        BillTotals totals = AlipayTradeBill.read(new ByteArrayInputStream(zip), lines::add);
        assertThat(totals).isEqualTo(new BillTotals(6, money("0.06"), 4, money("0.04")));
        assertThat(lines.get(0)).isEqualTo(new BillLine(PAYMENT, "service_1568601259302",
                "2019091622001458860515315453", null, null, money("0.01"), "CNY", SUCCEEDED, 6));
        // A refund shares its payment's 支付宝交易号 and is keyed by 退款批次号/请求号, its amount made positive.
        assertThat(lines.get(1)).isEqualTo(new BillLine(REFUND, "service_1568601259302",
                "2019091622001458860515315453", "re_test_1568602607356", null, money("0.01"), "CNY", SUCCEEDED, 7));
        assertThat(lines).noneMatch(l -> l.outTradeNo().contains("\t") || l.providerTradeNo().contains("\t"));
    }

    @Test
    void entryNamesAreGbkNotUtf8() throws Exception {
        byte[] zip = zip(SAMPLE_DETAIL, SAMPLE_2019);
        // Read with java.util.zip's default (UTF-8), the GBK name is not even readable: the charset matters.
        assertThatThrownBy(() -> {
            try (ZipInputStream utf8 = new ZipInputStream(new ByteArrayInputStream(zip))) {
                utf8.getNextEntry();
            }
        }).isInstanceOf(IllegalArgumentException.class);
        assertThat(AlipayTradeBill.read(new ByteArrayInputStream(zip), line -> { }).refundCount()).isEqualTo(4);
        byte[] generated = BillFiles.alipay(List.of(payment("o1", "2026001", "1.00")),
                BillFiles.AlipayOptions.standard());
        List<String> names = new ArrayList<>();
        try (ZipInputStream gbk = new ZipInputStream(new ByteArrayInputStream(generated), AlipayTradeBill.GBK)) {
            for (ZipEntry e = gbk.getNextEntry(); e != null; e = gbk.getNextEntry()) {
                names.add(e.getName());
            }
        }
        assertThat(names).containsExactly(BillFiles.ALIPAY_DETAIL_ENTRY, BillFiles.ALIPAY_SUMMARY_ENTRY);
    }

    @Test
    void generatedBillWithCrlfRoundTrips() throws Exception {
        List<BillLine> lines = List.of(payment("o1", "2026001", "10.00"), refund("o1", "2026001", "r1", "4.50"),
                refund("o1", "2026001", null, "0.50"), payment("o2", "2026002", "0.01"));
        for (boolean crlf : new boolean[]{false, true}) {
            byte[] zip = BillFiles.alipay(lines, BillFiles.AlipayOptions.standard().crlf(crlf));
            List<BillLine> read = new ArrayList<>();
            BillTotals totals = AlipayTradeBill.read(new ByteArrayInputStream(zip), read::add);
            assertThat(totals).isEqualTo(new BillTotals(2, money("10.01"), 2, money("5.00")));
            assertThat(read).isEqualTo(WxPayTradeBillTest.numbered(lines, 6));
        }
    }

    @Test
    void totalsAreCheckedAgainstMerchantReceivedNotOrderAmount() throws Exception {
        // With a merchant discount 订单金额 (the line's amount) and 商家实收 (what 交易合计 totals) differ.
        List<BillLine> lines = List.of(payment("o1", "2026001", "10.00"), payment("o2", "2026002", "5.00"));
        byte[] zip = BillFiles.alipay(lines, BillFiles.AlipayOptions.standard().merchantDiscount(money("1.00")));
        String detail = detailText(zip);
        assertThat(detail).contains("#交易合计：2笔，商家实收共13.00元，商家优惠共2.00元");
        BillTotals totals = AlipayTradeBill.read(new ByteArrayInputStream(zip), line -> { });
        assertThat(totals.paymentSum()).isEqualByComparingTo("15.00");
    }

    @Test
    void totalsMismatchIsIncomplete() {
        List<BillLine> lines = List.of(payment("o1", "2026001", "10.00"), refund("o1", "2026001", "r1", "4.50"));
        for (BillFiles.AlipayOptions broken : List.of(
                BillFiles.AlipayOptions.standard().wrongPaymentCount(1),
                BillFiles.AlipayOptions.standard().wrongPaymentSum(money("0.01")),
                BillFiles.AlipayOptions.standard().wrongRefundCount(-1),
                BillFiles.AlipayOptions.standard().wrongRefundSum(money("-0.01")))) {
            byte[] zip = BillFiles.alipay(lines, broken);
            assertThatThrownBy(() -> AlipayTradeBill.read(new ByteArrayInputStream(zip), line -> { }))
                    .as(broken.toString())
                    .isInstanceOf(BillException.Incomplete.class);
        }
    }

    @Test
    void missingTotalsOrDetailEntryIsIncomplete() throws IOException {
        List<BillLine> lines = List.of(payment("o1", "2026001", "10.00"));
        byte[] cut = BillFiles.alipay(lines, BillFiles.AlipayOptions.standard().withoutTotals());
        assertThatThrownBy(() -> AlipayTradeBill.read(new ByteArrayInputStream(cut), line -> { }))
                .isInstanceOf(BillException.Incomplete.class).hasMessageContaining("#交易合计");
        byte[] noDetail = BillFiles.alipay(lines, BillFiles.AlipayOptions.standard().withoutDetailEntry());
        assertThatThrownBy(() -> AlipayTradeBill.read(new ByteArrayInputStream(noDetail), line -> { }))
                .isInstanceOf(BillException.Incomplete.class).hasMessageContaining("_业务明细.csv");
        String onlyPayments = SAMPLE_2019.replaceAll("#退款合计：[^\n]*\n", "");
        assertThatThrownBy(() -> AlipayTradeBill.read(new ByteArrayInputStream(zip(SAMPLE_DETAIL, onlyPayments)),
                line -> { }))
                .isInstanceOf(BillException.Incomplete.class).hasMessageContaining("#退款合计");
        byte[] whole = BillFiles.alipay(lines, BillFiles.AlipayOptions.standard());
        byte[] half = Arrays.copyOf(whole, whole.length / 2);
        assertThatThrownBy(() -> AlipayTradeBill.read(new ByteArrayInputStream(half), line -> { }))
                .isInstanceOf(BillException.class);
    }

    @Test
    void malformedLinesNameTheirLine() {
        String badAmount = SAMPLE_2019.replace("\t,\t,\t,\t,*庚辰(182****01)\t,0.01,", "\t,\t,\t,\t,*庚辰(182****01)\t,0.0x,");
        assertThatThrownBy(() -> AlipayTradeBill.read(new ByteArrayInputStream(zip(SAMPLE_DETAIL, badAmount)),
                line -> { }))
                .isInstanceOf(BillException.Malformed.class).hasMessageContaining("line 14");
        String badType = SAMPLE_2019.replace("qd_201909161844073417CB0wPzR\t,交易\t", "qd_201909161844073417CB0wPzR\t,冻结\t");
        assertThatThrownBy(() -> AlipayTradeBill.read(new ByteArrayInputStream(zip(SAMPLE_DETAIL, badType)),
                line -> { }))
                .isInstanceOf(BillException.Malformed.class).hasMessageContaining("line 15");
        String positiveRefund = SAMPLE_2019.replace(",-0.01,-0.01,0.00,0.00,0.00,0.00,0.00,,0.00\t,0.00,re_test_1568602607356",
                ",0.01,-0.01,0.00,0.00,0.00,0.00,0.00,,0.00\t,0.00,re_test_1568602607356");
        assertThatThrownBy(() -> AlipayTradeBill.read(new ByteArrayInputStream(zip(SAMPLE_DETAIL, positiveRefund)),
                line -> { }))
                .isInstanceOf(BillException.Malformed.class).hasMessageContaining("line 7");
    }

    @Test
    void quotedFieldsWithCommasAreOneField() throws Exception {
        String quoted = SAMPLE_2019.replace(",下单测试,2019-09-16 10:55:16,2019-09-16 10:55:23,",
                ",\"下单,测试 \"\"A\"\"\",2019-09-16 10:55:16,2019-09-16 10:55:23,");
        assertThat(quoted).isNotEqualTo(SAMPLE_2019);
        assertThat(AlipayTradeBill.read(new ByteArrayInputStream(zip(SAMPLE_DETAIL, quoted)), line -> { })
                .paymentCount()).isEqualTo(6);
    }

    // ------------------------------------------------------------ helpers

    /** A ZIP of GBK entries, names and contents, as Alipay serves it. */
    static byte[] zip(String... namesAndContents) {
        try {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            try (ZipOutputStream zip = new ZipOutputStream(out, AlipayTradeBill.GBK)) {
                for (int i = 0; i < namesAndContents.length; i += 2) {
                    zip.putNextEntry(new ZipEntry(namesAndContents[i]));
                    zip.write(namesAndContents[i + 1].getBytes(AlipayTradeBill.GBK));
                    zip.closeEntry();
                }
            }
            return out.toByteArray();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    static String detailText(byte[] zip) throws IOException {
        try (ZipInputStream in = new ZipInputStream(new ByteArrayInputStream(zip), AlipayTradeBill.GBK)) {
            for (ZipEntry e = in.getNextEntry(); e != null; e = in.getNextEntry()) {
                if (e.getName().endsWith(AlipayTradeBill.DETAIL_SUFFIX)) {
                    return new String(in.readAllBytes(), AlipayTradeBill.GBK);
                }
            }
        }
        throw new AssertionError("no detail entry");
    }

    static BigDecimal money(String value) {
        return new BigDecimal(value);
    }

    static BillLine payment(String out, String trade, String amount) {
        return new BillLine(PAYMENT, out, trade, null, null, money(amount), "CNY", SUCCEEDED, 0);
    }

    static BillLine refund(String out, String trade, String requestNo, String amount) {
        return new BillLine(REFUND, out, trade, requestNo, null, money(amount), "CNY", SUCCEEDED, 0);
    }

    static {
        // The detail text is GBK-encodable; a character outside GBK would silently become '?' in these fixtures.
        if (!AlipayTradeBill.GBK.newEncoder().canEncode(SAMPLE_2019)) {
            throw new ExceptionInInitializerError("the sample has characters GBK cannot hold");
        }
    }
}
