package io.paycallback.statement.bill;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.zip.GZIPOutputStream;

import static io.paycallback.statement.bill.BillLine.Kind.PAYMENT;
import static io.paycallback.statement.bill.BillLine.Kind.REFUND;
import static io.paycallback.statement.bill.BillLine.State.FAILED;
import static io.paycallback.statement.bill.BillLine.State.PROCESSING;
import static io.paycallback.statement.bill.BillLine.State.REVOKED;
import static io.paycallback.statement.bill.BillLine.State.SUCCEEDED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class WxPayTradeBillTest {

    // ------------------------------------------------------------ public samples, re-typed

    /** gunsluo/wechatpay-go client_test.go TestDownloadForClient (also tradebill_test.go): ALL, three payments. */
    static final String GUNSLUO_ALL = BillFiles.WX_HEADER + "\n"
            + "`2021-01-28 17:07:11,`wx81be3101902f7cb2,`1601959334,`0,`,`4200000925202101284997714292,`S20210128170702357723,`ofyak5qR_1wYsC99CsWA6R9MJazA,`NATIVE,`SUCCESS,`OTHERS,`CNY,`0.01,`0.00,`0,`0,`0.00,`0.00,`,`,`for testing,`cipher code,`0.00000,`1.00%,`0.01,`0.00,`\n"
            + "`2021-01-28 15:35:18,`wx81be3101902f7cb2,`1601959334,`0,`,`4200000910202101282955148400,`S20210128153505214586,`ofyak5qR_1wYsC99CsWA6R9MJazA,`NATIVE,`SUCCESS,`OTHERS,`CNY,`0.01,`0.00,`0,`0,`0.00,`0.00,`,`,`for testing,`cipher code,`0.00000,`1.00%,`0.01,`0.00,`\n"
            + "`2021-01-28 16:59:46,`wx81be3101902f7cb2,`1601959334,`0,`,`4200000926202101281412639609,`S20210128165824499930,`ofyak5qR_1wYsC99CsWA6R9MJazA,`NATIVE,`SUCCESS,`OTHERS,`CNY,`0.01,`0.00,`0,`0,`0.00,`0.00,`,`,`for testing,`cipher code,`0.00000,`1.00%,`0.01,`0.00,`\n"
            + BillFiles.WX_SUMMARY + "\n"
            + "`3,`0.03,`0.00,`0.00,`0.00000,`0.03,`0.00\n";

    static final String REFUND_HEADER = "交易时间,公众账号ID,商户号,特约商户号,设备号,微信订单号,商户订单号,用户标识,交易类型,交易状态,"
            + "付款银行,货币种类,应结订单金额,代金券金额,退款申请时间,退款成功时间,微信退款单号,商户退款单号,退款金额,充值券退款金额,"
            + "退款类型,退款状态,商品名称,商户数据包,手续费,费率,订单金额,申请退款金额,费率备注";
    static final String SUCCESS_HEADER = "交易时间,公众账号ID,商户号,特约商户号,设备号,微信订单号,商户订单号,用户标识,交易类型,交易状态,"
            + "付款银行,货币种类,应结订单金额,代金券金额,商品名称,商户数据包,手续费,费率,订单金额,费率备注";

    /** gunsluo/wechatpay-go tradebill_test.go TestUnmarshalTradeBillResponse: a REFUND bill, two refunds. */
    static final String GUNSLUO_REFUND = REFUND_HEADER + "\n"
            + "`2021-01-24 16:16:25,`wx81be3101902f7cb2,`1601959334,`0,`,`4200000844202101245866928772,`S20210124161554311546,`ofyak5qR_1wYsC99CsWA6R9MJazA,`NATIVE,`REFUND,`OTHERS,`CNY,`0.00,`0.00,`2021-02-01 14:33:21,`2021-02-01 14:33:24,`50300807172021020106006664916,`S20210201143320649393,`0.01,`0.00,`ORIGINAL,`SUCCESS,`for testing,`cipher code,`0.00000,`1.00%,`0.00,`0.01,`\n"
            + "`2021-01-19 16:31:18,`wx81be3101902f7cb2,`1601959334,`0,`,`4200000846202101197461830397,`S20210119083100844726118382,`ofyak5qR_1wYsC99CsWA6R9MJazA,`NATIVE,`REFUND,`OTHERS,`CNY,`0.00,`0.00,`2021-02-01 14:00:45,`2021-02-01 14:00:50,`50300907032021020105978998710,`S20210201140044552846,`0.01,`0.00,`ORIGINAL,`SUCCESS,`Package Venue,`,`0.00000,`1.00%,`0.00,`0.01,`\n"
            + BillFiles.WX_SUMMARY + "\n"
            + "`2,`0.00,`0.02,`0.00,`0.00000,`0.00,`0.02\n";

    /** gunsluo/wechatpay-go tradebill_test.go: a SUCCESS bill (20 columns) with the 7-column summary. */
    static final String GUNSLUO_SUCCESS = SUCCESS_HEADER + "\n"
            + "`2021-02-01 14:38:45,`wx81be3101902f7cb2,`1601959334,`0,`,`4200000922202102014836880592,`S20210201143829466741,`ofyak5lCyFIsihOYEX0Zx9smR0g0,`NATIVE,`SUCCESS,`OTHERS,`CNY,`0.01,`0.00,`for testing,`cipher code,`0.00000,`1.00%,`0.01,`\n"
            + BillFiles.WX_SUMMARY + "\n"
            + "`1,`0.01,`0.00,`0.00,`0.00000,`0.01,`0.00\n";

    /** binarywang/WxJava WxPayBillResultTest PAY_BILL_RESULT_ALL_CONTENT: one line of a 48-line bill. */
    static final String WXJAVA_ALL = BillFiles.WX_HEADER + "\n"
            + "`2019-07-25 08:35:41,`WWWW,`XXXXXXXX,`0,`,`XXXXXXXXXXXXX,`XXXXXXXXXX,`XXXXXXXXXXX,`JSAPI,`SUCCESS,`PSBC_DEBIT,`CNY,`6.00,`0.00,`0,`0,`0.00,`0.00,`,`,`XXXXXX,`XXXXXXX,`0.04000,`0.60%,`6.00,`0.00,`\n"
            + BillFiles.WX_SUMMARY + "\n"
            + "`48,`5.76,`1.42,`0.00,`0.01000,`5.76,`1.42\n";

    /** WxJava PAY_BILL_RESULT_ALL_CONTENT_1: the legacy 24-column layout (the old v2 documentation's example). */
    static final String WXJAVA_LEGACY = BillFiles.WX_LEGACY_HEADER + "\n"
            + "`2014-11-10 16：33：45,`wx2421b1c4370ec43b,`10000100,`0,`1000,`1001690740201411100005734289,`1415640626,`085e9858e3ba5186aafcbaed1,`MICROPAY,`SUCCESS,`OTHERS,`CNY,`0.01,`0.0,`0,`0,`0,`0,`,`,`被扫支付测试,`订单额外描述,`0,`0.60%\n"
            + "`2014-11-10 16：46：14,`wx2421b1c4370ec43b,`10000100,`0,`1000,`1002780740201411100005729794,`1415635270,`085e9858e90ca40c0b5aee463,`MICROPAY,`SUCCESS,`OTHERS,`CNY,`0.01,`0.0,`0,`0,`0,`0,`,`,`被扫支付测试,`订单额外描述,`0,`0.60%\n"
            + BillFiles.WX_LEGACY_SUMMARY + "\n"
            + "`2,`0.02,`0.0,`0.0,`0";

    /** WxJava PAY_BILL_RESULT_SUCCESS_CONTENT: one line of a 31-line SUCCESS bill. */
    static final String WXJAVA_SUCCESS = SUCCESS_HEADER + "\n"
            + "`2019-07-23 18:46:41,`XXXX,`XXX,`XXX,`,`XXX,`XXX,`XXX,`JSAPI,`SUCCESS,`CFT,`CNY,`0.01,`0.00,`XXX,`XXXX,`0.00000,`0.60%,`0.01,`\n"
            + BillFiles.WX_SUMMARY + "\n"
            + "`31,`3.05,`0.00,`0.00,`0.02000,`3.05,`0.00";

    /** WxJava PAY_BILL_RESULT_REFUND_CONTENT: one line of a four-line REFUND bill. */
    static final String WXJAVA_REFUND = REFUND_HEADER + "\n"
            + "`2019-07-23 20:53:36,`xxx,`xxx,`xxx,`,`xxx,`xxxx,`xxxxx,`JSAPI,`REFUND,`CFT,`CNY,`0.00,`0.00,`2019-07-23 20:53:36,`2019-07-23 20:53:40,`xxxx,`xxx,`0.01,`0.00,`ORIGINAL,`SUCCESS,`xxxx,`xxxx,`0.00000,`0.60%,`0.00,`0.01,`\n"
            + BillFiles.WX_SUMMARY + "\n"
            + "`4,`0.00,`2.02,`0.00,`-0.02000,`0.00,`2.02";

    /**
     * A real ALL bill of 2024-01-16 quoted in dax-pay's WechatPayReconcileService.main (with its BOM): one payment and
     * two refunds of it. The evidence that 总交易单数 counts refund lines and that the totals are column sums.
     */
    static final String DAXPAY_ALL = "\uFEFF" + BillFiles.WX_HEADER + "\n"
            + "`2024-01-16 22:43:59,`wx9dfe38480f030e85,`1627859777,`0,`,`4200002086202401160745964084,`1747268229775183872,`o2RW45oGxo1Z8Fhcf6Oy9rMM7aT8,`NATIVE,`SUCCESS,`OTHERS,`CNY,`0.02,`0.00,`0,`0,`0.00,`0.00,`,`,`测试支付4,`,`0.00000,`0.90%,`0.02,`0.00,`\n"
            + "`2024-01-16 22:45:16,`wx9dfe38480f030e85,`1627859777,`0,`,`4200002086202401160745964084,`1747268229775183872,`o2RW45oGxo1Z8Fhcf6Oy9rMM7aT8,`NATIVE,`REFUND,`OTHERS,`CNY,`0.00,`0.00,`50303108562024011601487282563,`R1747268742516264960,`0.01,`0.00,`ORIGINAL,`SUCCESS,`测试支付4,`,`0.00000,`0.90%,`0.00,`0.01,`\n"
            + "`2024-01-16 23:10:18,`wx9dfe38480f030e85,`1627859777,`0,`,`4200002086202401160745964084,`1747268229775183872,`o2RW45oGxo1Z8Fhcf6Oy9rMM7aT8,`NATIVE,`REFUND,`OTHERS,`CNY,`0.00,`0.00,`50303108562024011683774350275,`R1747275041228390400,`0.01,`0.00,`ORIGINAL,`SUCCESS,`测试支付4,`,`0.00000,`0.90%,`0.00,`0.01,`\n"
            + BillFiles.WX_SUMMARY + "\n"
            + "`3,`0.02,`0.02,`0.00,`0.00000,`0.02,`0.02";

    /**
     * A real legacy ALL bill of 2018-05-07 quoted in a public merchant's code comment (header variant 企业红包金额, CRLF
     * as the code strips it): nine payments and one refund; 总交易单数 10, 总交易额 2400.09, 总退款金额 0.02.
     */
    static final String LEGACY_2018 = String.join("\r\n",
            "交易时间,公众账号ID,商户号,子商户号,设备号,微信订单号,商户订单号,用户标识,交易类型,交易状态,付款银行,货币种类,总金额,企业红包金额,微信退款单号,商户退款单号,退款金额,企业红包退款金额,退款类型,退款状态,商品名称,商户数据包,手续费,费率",
            "`2018-05-07 10:54:45,`wx1024cb31dfbae7cc,`1488511392,`0,`,`4200000113201805074559498485,`152566112349603496538,`oOmPo0-gjIhFsT3WRFvL5l_iOtok,`NATIVE,`REFUND,`CFT,`CNY,`0.00,`0.00,`50000506642018050704485755976,`484316432018050745594984851525661661,`0.02,`0.00,`ORIGINAL,`SUCCESS,`家有官家--扫码充值,`3496--32,`0.00000,`0.60%",
            "`2018-05-07 10:45:37,`wx1024cb31dfbae7cc,`1488511392,`0,`,`4200000113201805074559498485,`152566112349603496538,`oOmPo0-gjIhFsT3WRFvL5l_iOtok,`NATIVE,`SUCCESS,`CFT,`CNY,`0.02,`0.00,`0,`0,`0.00,`0.00,`,`,`家有官家--扫码充值,`3496--32,`0.00000,`0.60%",
            "`2018-05-07 10:50:09,`wx1024cb31dfbae7cc,`1488511392,`0,`,`4200000120201805074525206991,`1525661389973034968085,`oOmPo0-gjIhFsT3WRFvL5l_iOtok,`NATIVE,`SUCCESS,`CFT,`CNY,`0.03,`0.00,`0,`0,`0.00,`0.00,`,`,`家有官家--扫码充值,`3496--32,`0.00000,`0.60%",
            "`2018-05-07 17:08:34,`wx1024cb31dfbae7cc,`1488511392,`0,`,`4200000121201805074782619515,`050717082815022,`oOmPo01XvctZOVPBB18wO0yrjVO4,`APP,`SUCCESS,`CFT,`CNY,`1000.00,`0.00,`0,`0,`0.00,`0.00,`,`,`余额充值,`2414-何嘉-13122828856-长寿路店,`6.00000,`0.60%",
            "`2018-05-07 09:15:36,`wx1024cb31dfbae7cc,`1488511392,`0,`,`4200000124201805074008280074,`152565572473204622142,`oOmPo0xSwKp0ThSMG5tyut3xW008,`NATIVE,`SUCCESS,`CFT,`CNY,`400.00,`0.00,`0,`0,`0.00,`0.00,`,`,`家有官家--扫码充值,`4622--161,`2.40000,`0.60%",
            "`2018-05-07 09:27:25,`wx1024cb31dfbae7cc,`1488511392,`0,`,`4200000126201805074357341528,`1525656429469008589548,`oOmPo0zBBc6qttMNAKUv0muubK9Y,`NATIVE,`SUCCESS,`CFT,`CNY,`0.01,`0.00,`0,`0,`0.00,`0.00,`,`,`家有官家--扫码充值,`858--34,`0.00000,`0.60%",
            "`2018-05-07 10:41:09,`wx1024cb31dfbae7cc,`1488511392,`0,`,`4200000129201805074414966070,`1525660847944034968827,`oOmPo0-gjIhFsT3WRFvL5l_iOtok,`NATIVE,`SUCCESS,`CFT,`CNY,`0.01,`0.00,`0,`0,`0.00,`0.00,`,`,`家有官家--扫码充值,`3496--32,`0.00000,`0.60%",
            "`2018-05-07 09:28:27,`wx1024cb31dfbae7cc,`1488511392,`0,`,`4200000129201805074505137945,`1525656496782046222532,`oOmPo0xSwKp0ThSMG5tyut3xW008,`NATIVE,`SUCCESS,`CFT,`CNY,`0.01,`0.00,`0,`0,`0.00,`0.00,`,`,`家有官家--扫码充值,`4622--161,`0.00000,`0.60%",
            "`2018-05-07 09:21:46,`wx1024cb31dfbae7cc,`1488511392,`0,`,`4200000130201805074448612378,`1525656090484008234429,`oOmPo0zBBc6qttMNAKUv0muubK9Y,`NATIVE,`SUCCESS,`CFT,`CNY,`0.01,`0.00,`0,`0,`0.00,`0.00,`,`,`家有官家--扫码充值,`823--34,`0.00000,`0.60%",
            "`2018-05-07 10:38:47,`wx1024cb31dfbae7cc,`1488511392,`0,`,`4200000132201805074503706681,`1525660710228010479040,`oOmPo0yIRnnXO4TqobyqiTSDKHfQ,`NATIVE,`SUCCESS,`CFT,`CNY,`1000.00,`0.00,`0,`0,`0.00,`0.00,`,`,`家有官家--扫码充值,`1047--144,`6.00000,`0.60%",
            "总交易单数,总交易额,总退款金额,总企业红包退款金额,手续费总金额",
            "`10,`2400.09,`0.02,`0.00,`14.40000",
            "");

    @Test
    void gunsluoAllBill() throws Exception {
        List<BillLine> lines = new ArrayList<>();
        BillTotals totals = read(GUNSLUO_ALL, lines);
        assertThat(totals).isEqualTo(new BillTotals(3, money("0.03"), 0, money("0.00")));
        assertThat(lines.get(0)).isEqualTo(new BillLine(PAYMENT, "S20210128170702357723",
                "4200000925202101284997714292", null, null, money("0.01"), "CNY", SUCCEEDED, 2));
        assertThat(lines).extracting(BillLine::line).containsExactly(2L, 3L, 4L);
    }

    @Test
    void gunsluoRefundBillCountsRefundLinesInTheSummary() throws Exception {
        List<BillLine> lines = new ArrayList<>();
        BillTotals totals = read(GUNSLUO_REFUND, lines);
        assertThat(totals).isEqualTo(new BillTotals(0, money("0.00"), 2, money("0.02")));
        assertThat(lines.get(1)).isEqualTo(new BillLine(REFUND, "S20210119083100844726118382",
                "4200000846202101197461830397", "S20210201140044552846", "50300907032021020105978998710",
                money("0.01"), "CNY", SUCCEEDED, 3));
    }

    @Test
    void gunsluoSuccessBill() throws Exception {
        assertThat(read(GUNSLUO_SUCCESS, new ArrayList<>()))
                .isEqualTo(new BillTotals(1, money("0.01"), 0, money("0.00")));
    }

    @Test
    void gunsluoMalformedAmountNamesTheLine() {
        String bad = GUNSLUO_ALL.replace("`1.00%,`0.01,`0.00,`\n" + BillFiles.WX_SUMMARY,
                "`1.00%,`0.01,`a0.00,`\n" + BillFiles.WX_SUMMARY);
        assertThat(bad).isNotEqualTo(GUNSLUO_ALL);
        assertThatThrownBy(() -> read(bad, new ArrayList<>()))
                .isInstanceOf(BillException.Malformed.class)
                .hasMessageContaining("line 4")
                .hasMessageContaining("申请退款金额");
    }

    @Test
    void gunsluoStatedHashIsAMockSoTheDigestCheckRefusesIt() throws Exception {
        byte[] text = GUNSLUO_ALL.getBytes(StandardCharsets.UTF_8);
        // The sample's hash_value is made up; the file's real SHA-1 is what WeChat would state.
        assertThatThrownBy(() -> WxPayTradeBill.readPlain(new ByteArrayInputStream(text),
                "dcd7ceb3d382a1181798368bb15d8437de46c00f", line -> { }))
                .isInstanceOf(BillException.Tampered.class);
        String real = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(text));
        assertThat(WxPayTradeBill.readPlain(new ByteArrayInputStream(text), real.toUpperCase(Locale.ROOT), line -> { })
                .paymentCount()).isEqualTo(3);
        assertThat(WxPayTradeBill.readGzip(new ByteArrayInputStream(gzip(text)), real, line -> { }).paymentCount())
                .isEqualTo(3);
    }

    @Test
    void wxJavaLegacyLayoutReadsTotalAmountByName() throws Exception {
        List<BillLine> lines = new ArrayList<>();
        BillTotals totals = read(WXJAVA_LEGACY, lines);
        assertThat(totals).isEqualTo(new BillTotals(2, money("0.02"), 0, money("0.00")));
        assertThat(lines.get(1)).isEqualTo(new BillLine(PAYMENT, "1415635270", "1002780740201411100005729794", null,
                null, money("0.01"), "CNY", SUCCEEDED, 3));
    }

    @Test
    void wxJavaExcerptsDoNotAddUpSoTheyAreIncomplete() {
        // WxJava's ALL, SUCCESS and REFUND samples are one line cut from bills of 48, 31 and 4 lines: their summaries
        // cannot match, which is exactly what an incomplete download looks like. The lines themselves still parse.
        List<BillLine> all = new ArrayList<>();
        assertThatThrownBy(() -> read(WXJAVA_ALL, all)).isInstanceOf(BillException.Incomplete.class)
                .hasMessageContaining("48");
        assertThat(all).containsExactly(new BillLine(PAYMENT, "XXXXXXXXXX", "XXXXXXXXXXXXX", null, null,
                money("6.00"), "CNY", SUCCEEDED, 2));
        assertThatThrownBy(() -> read(WXJAVA_SUCCESS, new ArrayList<>())).isInstanceOf(BillException.Incomplete.class);
        List<BillLine> refund = new ArrayList<>();
        assertThatThrownBy(() -> read(WXJAVA_REFUND, refund)).isInstanceOf(BillException.Incomplete.class);
        assertThat(refund).containsExactly(new BillLine(REFUND, "xxxx", "xxx", "xxx", "xxxx", money("0.01"), "CNY",
                SUCCEEDED, 2));
    }

    @Test
    void wxJavaExcerptsWithTheirSummariesMadeToMatchAreRead() throws Exception {
        String all = WXJAVA_ALL.replace("`48,`5.76,`1.42,`0.00,`0.01000,`5.76,`1.42",
                "`1,`6.00,`0.00,`0.00,`0.04000,`6.00,`0.00");
        assertThat(read(all, new ArrayList<>())).isEqualTo(new BillTotals(1, money("6.00"), 0, money("0.00")));
        String refund = WXJAVA_REFUND.replace("`4,`0.00,`2.02,`0.00,`-0.02000,`0.00,`2.02",
                "`1,`0.00,`0.01,`0.00,`0.00000,`0.00,`0.01");
        assertThat(read(refund, new ArrayList<>())).isEqualTo(new BillTotals(0, money("0.00"), 1, money("0.01")));
    }

    @Test
    void daxPayRealBillWithBomAndRefunds() throws Exception {
        List<BillLine> lines = new ArrayList<>();
        BillTotals totals = read(DAXPAY_ALL, lines);
        assertThat(totals).isEqualTo(new BillTotals(1, money("0.02"), 2, money("0.02")));
        assertThat(lines.get(2)).isEqualTo(new BillLine(REFUND, "1747268229775183872", "4200002086202401160745964084",
                "R1747275041228390400", "50303108562024011683774350275", money("0.01"), "CNY", SUCCEEDED, 4));
    }

    @Test
    void legacy2018BillWithCrlfAndARefundLine() throws Exception {
        List<BillLine> lines = new ArrayList<>();
        BillTotals totals = read(LEGACY_2018, lines);
        assertThat(totals).isEqualTo(new BillTotals(9, money("2400.09"), 1, money("0.02")));
        assertThat(lines.get(0)).isEqualTo(new BillLine(REFUND, "152566112349603496538",
                "4200000113201805074559498485", "484316432018050745594984851525661661",
                "50000506642018050704485755976", money("0.02"), "CNY", SUCCEEDED, 2));
        assertThat(lines.get(3).outTradeNo()).isEqualTo("050717082815022");
    }

    // ------------------------------------------------------------ generated bills

    @Test
    void backticksBomCrlfAndCommasInsideFields() throws Exception {
        List<BillLine> lines = List.of(
                payment("o1", "4200001", "12.30", SUCCEEDED),
                payment("o2", "4200002", "1.00", REVOKED),
                refund("o1", "4200001", "r1", "50301", "2.30", PROCESSING),
                refund("o1", "4200001", "r2", "50302", "3.00", FAILED));
        for (boolean bom : new boolean[]{false, true}) {
            for (boolean crlf : new boolean[]{false, true}) {
                BillFiles.WxFile file = BillFiles.wxPay(lines, BillFiles.WxOptions.standard().bom(bom).crlf(crlf));
                String text = new String(file.text(), StandardCharsets.UTF_8);
                assertThat(text.startsWith("\uFEFF")).isEqualTo(bom);
                assertThat(text.contains("\r\n")).isEqualTo(crlf);
                List<BillLine> read = new ArrayList<>();
                BillTotals totals = WxPayTradeBill.readGzip(new ByteArrayInputStream(file.gzip()), file.sha1Hex(),
                        read::add);
                assertThat(totals).isEqualTo(new BillTotals(2, money("13.30"), 2, money("5.30")));
                assertThat(read).isEqualTo(numbered(lines, 2));
            }
        }
    }

    @Test
    void legacyLayoutGenerated() throws Exception {
        List<BillLine> lines = List.of(payment("o1", "4200001", "5.00", SUCCEEDED),
                refund("o1", "4200001", "r1", "50301", "1.25", SUCCEEDED));
        BillFiles.WxFile file = BillFiles.wxPay(lines, BillFiles.WxOptions.standard().layout(BillFiles.WxLayout.LEGACY));
        assertThat(new String(file.text(), StandardCharsets.UTF_8)).contains("总金额").doesNotContain("订单金额");
        List<BillLine> read = new ArrayList<>();
        WxPayTradeBill.readPlain(new ByteArrayInputStream(file.text()), file.sha1Hex(), read::add);
        assertThat(read).isEqualTo(numbered(lines, 2));
    }

    @Test
    void summaryMismatchIsIncomplete() {
        List<BillLine> lines = List.of(payment("o1", "4200001", "5.00", SUCCEEDED),
                refund("o1", "4200001", "r1", "50301", "1.25", SUCCEEDED));
        for (BillFiles.WxOptions broken : List.of(
                BillFiles.WxOptions.standard().wrongCount(1),
                BillFiles.WxOptions.standard().wrongCount(-1),
                BillFiles.WxOptions.standard().wrongOrderSum(new BigDecimal("0.01")),
                BillFiles.WxOptions.standard().wrongRefundSum(new BigDecimal("-0.01")),
                BillFiles.WxOptions.standard().layout(BillFiles.WxLayout.LEGACY).wrongOrderSum(new BigDecimal("1")),
                BillFiles.WxOptions.standard().layout(BillFiles.WxLayout.LEGACY).wrongRefundSum(new BigDecimal("1")))) {
            BillFiles.WxFile file = BillFiles.wxPay(lines, broken);
            // The digest is right (the file is what "WeChat" made); its own totals are not.
            assertThatThrownBy(() -> WxPayTradeBill.readPlain(new ByteArrayInputStream(file.text()), file.sha1Hex(),
                    line -> { }))
                    .as(broken.toString())
                    .isInstanceOf(BillException.Incomplete.class);
        }
    }

    @Test
    void cutFileIsIncomplete() throws Exception {
        List<BillLine> lines = List.of(payment("o1", "4200001", "5.00", SUCCEEDED));
        BillFiles.WxFile noSummary = BillFiles.wxPay(lines, BillFiles.WxOptions.standard().withoutSummary());
        assertThatThrownBy(() -> WxPayTradeBill.read(new ByteArrayInputStream(noSummary.text()), line -> { }))
                .isInstanceOf(BillException.Incomplete.class).hasMessageContaining("no summary");
        String text = new String(BillFiles.wxPay(lines, BillFiles.WxOptions.standard()).text(), StandardCharsets.UTF_8);
        String noSummaryLine = text.substring(0, text.indexOf('\n', text.indexOf(WxPayTradeBill.SUMMARY_START)) + 1);
        assertThatThrownBy(() -> read(noSummaryLine, new ArrayList<>())).isInstanceOf(BillException.Incomplete.class);
        assertThatThrownBy(() -> read("", new ArrayList<>())).isInstanceOf(BillException.Incomplete.class);
        // A gzip cut in the middle is a cut download too.
        byte[] gzip = BillFiles.wxPay(lines, BillFiles.WxOptions.standard()).gzip();
        byte[] half = Arrays.copyOf(gzip, gzip.length / 2);
        assertThatThrownBy(() -> WxPayTradeBill.readGzip(new ByteArrayInputStream(half),
                BillFiles.wxPay(lines, BillFiles.WxOptions.standard()).sha1Hex(), line -> { }))
                .isInstanceOfAny(BillException.Incomplete.class, BillException.Tampered.class);
    }

    @Test
    void hashMismatchIsTamperedAfterTheSinkSawTheLines() throws Exception {
        List<BillLine> lines = List.of(payment("o1", "4200001", "5.00", SUCCEEDED),
                payment("o2", "4200002", "6.00", SUCCEEDED));
        BillFiles.WxFile file = BillFiles.wxPay(lines, BillFiles.WxOptions.standard());
        // A file whose totals still add up, changed after WeChat hashed it: one order number differs.
        byte[] changed = new String(file.text(), StandardCharsets.UTF_8).replace("`o2,", "`o3,")
                .getBytes(StandardCharsets.UTF_8);
        List<BillLine> seen = new ArrayList<>();
        assertThatThrownBy(() -> WxPayTradeBill.readGzip(new ByteArrayInputStream(gzip(changed)), file.sha1Hex(),
                seen::add))
                .isInstanceOf(BillException.Tampered.class);
        assertThat(seen).hasSize(2);
        assertThat(seen.get(1).outTradeNo()).isEqualTo("o3");
        assertThatThrownBy(() -> WxPayTradeBill.readPlain(new ByteArrayInputStream(file.text()), "not-a-sha1",
                line -> { }))
                .isInstanceOf(BillException.Malformed.class);
    }

    @Test
    void malformedLinesNameTheirLine() {
        String good = new String(BillFiles.wxPay(List.of(payment("o1", "4200001", "5.00", SUCCEEDED),
                payment("o2", "4200002", "6.00", SUCCEEDED)), BillFiles.WxOptions.standard()).text(),
                StandardCharsets.UTF_8);
        assertThatThrownBy(() -> read(good.replace("`0.60%,`6.00,", "`0.60%,`6.0x,"), new ArrayList<>()))
                .isInstanceOf(BillException.Malformed.class).hasMessageContaining("line 3");
        assertThatThrownBy(() -> read(good.replace("`0.60%,`6.00,", "`0.60%,`6.001,"), new ArrayList<>()))
                .isInstanceOf(BillException.Malformed.class).hasMessageContaining("line 3");
        assertThatThrownBy(() -> read(good.replace("`o2,`oUpF8uMuAJO_M2pxb1Q9zNjWeS6o,`NATIVE,`SUCCESS",
                "`o2,`oUpF8uMuAJO_M2pxb1Q9zNjWeS6o,`NATIVE,`CLOSED"), new ArrayList<>()))
                .isInstanceOf(BillException.Malformed.class).hasMessageContaining("line 3").hasMessageContaining("CLOSED");
        assertThatThrownBy(() -> read(good.replace("交易状态,", "状态,"), new ArrayList<>()))
                .isInstanceOf(BillException.Malformed.class).hasMessageContaining("交易状态");
        assertThatThrownBy(() -> read(good.replace("`o2,", "o2,"), new ArrayList<>()))
                .isInstanceOf(BillException.Malformed.class).hasMessageContaining("line 3");
    }

    @Test
    void refundStatesFromTheBill() throws Exception {
        assertThat(WxPayTradeBill.refundState("SUCCESS", 1)).isEqualTo(SUCCEEDED);
        assertThat(WxPayTradeBill.refundState("PROCESSING", 1)).isEqualTo(PROCESSING);
        assertThat(WxPayTradeBill.refundState("NOTSURE", 1)).isEqualTo(PROCESSING);
        for (String failed : List.of("FAIL", "CLOSED", "REFUNDCLOSE", "ABNORMAL", "CHANGE")) {
            assertThat(WxPayTradeBill.refundState(failed, 1)).isEqualTo(FAILED);
        }
        assertThatThrownBy(() -> WxPayTradeBill.refundState("", 7)).isInstanceOf(BillException.Malformed.class)
                .hasMessageContaining("line 7");
    }

    // ------------------------------------------------------------ helpers

    static BillTotals read(String text, List<BillLine> into) throws BillException, IOException {
        return WxPayTradeBill.read(new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)), into::add);
    }

    static byte[] gzip(byte[] text) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream gzip = new GZIPOutputStream(out)) {
            gzip.write(text);
        }
        return out.toByteArray();
    }

    static BigDecimal money(String value) {
        return new BigDecimal(value);
    }

    static BillLine payment(String out, String trade, String amount, BillLine.State state) {
        return new BillLine(PAYMENT, out, trade, null, null, money(amount), "CNY", state, 0);
    }

    static BillLine refund(String out, String trade, String refundNo, String providerRefundNo, String amount,
                           BillLine.State state) {
        return new BillLine(REFUND, out, trade, refundNo, providerRefundNo, money(amount), "CNY", state, 0);
    }

    /** The lines as a reader numbers them: the first at {@code first}, one per file line. */
    static List<BillLine> numbered(List<BillLine> lines, long first) {
        List<BillLine> numbered = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            BillLine l = lines.get(i);
            numbered.add(new BillLine(l.kind(), l.outTradeNo(), l.providerTradeNo(), l.refundNo(), l.providerRefundNo(),
                    l.amount(), l.currency(), l.state(), first + i));
        }
        return numbered;
    }
}
