package io.paycallback.channel.alipay;

import io.paycallback.channel.FormattedAnswer;
import io.paycallback.channel.CallbackKind;
import io.paycallback.channel.CallbackRequest;
import io.paycallback.channel.Notice;
import io.paycallback.channel.AnswerKind;
import io.paycallback.channel.PublicKeys;
import io.paycallback.channel.TestKeys;
import io.paycallback.channel.ChannelVerdict;
import io.paycallback.trade.ChannelId;
import io.paycallback.trade.ChannelTradeNo;
import io.paycallback.trade.Money;
import io.paycallback.trade.OutTradeNo;
import io.paycallback.trade.RefundNo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.util.Map;

import static io.paycallback.channel.alipay.AlipayFixture.APP_ID;
import static io.paycallback.channel.alipay.AlipayFixture.payment;
import static io.paycallback.channel.alipay.AlipayFixture.refund;
import static io.paycallback.channel.alipay.AlipayFixture.request;
import static io.paycallback.channel.alipay.AlipayFixture.signed;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

class AlipayChannelTest {

    private static final KeyPair ALIPAY = TestKeys.rsa();
    private static final KeyPair STRANGER = TestKeys.rsa();

    private final AlipayChannel channel = new AlipayChannel(Map.of("default",
            new AlipayMerchant(APP_ID, PublicKeys.parse(TestKeys.base64Der(ALIPAY.getPublic()), "k"))));

    private ChannelVerdict read(CallbackKind kind, Map<String, String> params) {
        return channel.read(request(kind, signed(params, ALIPAY.getPrivate())));
    }

    private static <N extends Notice> N accepted(ChannelVerdict verdict, Class<N> type) {
        return assertInstanceOf(type, assertInstanceOf(ChannelVerdict.Accepted.class, verdict).notice());
    }

    @Test
    void acceptsSignedPayment() {
        Notice.Payment payment = accepted(read(CallbackKind.PAYMENT, payment("TRADE_SUCCESS", "88.00", "utf-8")), Notice.Payment.class);
        assertEquals(new Notice.Payment("default", ChannelId.ALIPAY, new ChannelTradeNo("2026010122001400000000000001"),
                new OutTradeNo("ORDER-1"), "TRADE_SUCCESS", new Money(new BigDecimal("88.00"), "CNY")), payment);
    }

    @Test
    void tradeFinishedIsAlsoPaid() {
        accepted(read(CallbackKind.PAYMENT, payment("TRADE_FINISHED", "88.00", "utf-8")), Notice.Payment.class);
    }

    @ParameterizedTest
    @ValueSource(strings = {"88.00", "0.01", "88.5", "100", "0.00"})
    void amountsParseExactly(String amount) {
        Notice.Payment payment = accepted(read(CallbackKind.PAYMENT, payment("TRADE_SUCCESS", amount, "utf-8")), Notice.Payment.class);
        assertEquals(new BigDecimal(amount).setScale(2), payment.amount().amount());
        assertEquals(2, payment.amount().amount().scale());
    }

    @ParameterizedTest
    @ValueSource(strings = {"88.001", "-1.00", "1e2", "88,00", " 88.00", "abc", ".5"})
    void oddAmountsAreMalformed(String amount) {
        assertInstanceOf(ChannelVerdict.Malformed.class, read(CallbackKind.PAYMENT, payment("TRADE_SUCCESS", amount, "utf-8")));
    }

    @ParameterizedTest
    @ValueSource(strings = {"WAIT_BUYER_PAY", "TRADE_CLOSED", "SOMETHING_NEW"})
    void unpaidStatusesAreIgnored(String tradeStatus) {
        accepted(read(CallbackKind.PAYMENT, payment(tradeStatus, "88.00", "utf-8")), Notice.Ignored.class);
    }

    @Test
    void verifiesGbkDeclaredBodyWithChineseSubject() {
        Map<String, String> params = payment("TRADE_SUCCESS", "88.00", "gbk");
        CallbackRequest request = request(CallbackKind.PAYMENT, signed(params, ALIPAY.getPrivate()));
        String asGbk = new String(request.body(), StandardCharsets.US_ASCII);
        assertTrue(asGbk.contains("subject=%B2%E2%CA%D4"), asGbk);
        accepted(channel.read(request), Notice.Payment.class);
    }

    @Test
    void gbkBodyReadAsUtf8WouldNotVerify() {
        Map<String, String> params = payment("TRADE_SUCCESS", "88.00", "gbk");
        Map<String, String> signedAsGbk = signed(params, ALIPAY.getPrivate());
        signedAsGbk.put("charset", "utf-8");
        assertInstanceOf(ChannelVerdict.BadSignature.class, channel.read(request(CallbackKind.PAYMENT, signedAsGbk)));
    }

    @Test
    void rejectsTamperedAmount() {
        Map<String, String> signed = signed(payment("TRADE_SUCCESS", "0.01", "utf-8"), ALIPAY.getPrivate());
        signed.put("total_amount", "88.00");
        assertEquals(new ChannelVerdict.BadSignature("signature does not match"), channel.read(request(CallbackKind.PAYMENT, signed)));
    }

    @Test
    void emptyValuesAreNotSignedButAnAddedValueIs() {
        Map<String, String> signed = signed(payment("TRADE_SUCCESS", "88.00", "utf-8"), ALIPAY.getPrivate());
        signed.put("passback_params", "injected");
        assertInstanceOf(ChannelVerdict.BadSignature.class, channel.read(request(CallbackKind.PAYMENT, signed)));
    }

    @Test
    void rejectsSignatureOfAnotherKey() {
        Map<String, String> signed = signed(payment("TRADE_SUCCESS", "88.00", "utf-8"), STRANGER.getPrivate());
        assertInstanceOf(ChannelVerdict.BadSignature.class, channel.read(request(CallbackKind.PAYMENT, signed)));
    }

    @Test
    void missingSignIsBadSignature() {
        Map<String, String> unsigned = payment("TRADE_SUCCESS", "88.00", "utf-8");
        assertEquals(new ChannelVerdict.BadSignature("missing sign"), channel.read(request(CallbackKind.PAYMENT, unsigned)));
    }

    @ParameterizedTest
    @ValueSource(strings = {"RSA", "", "rsa2"})
    void onlyRsa2IsAccepted(String signType) {
        Map<String, String> params = payment("TRADE_SUCCESS", "88.00", "utf-8");
        params.put("sign_type", signType);
        assertInstanceOf(ChannelVerdict.BadSignature.class, read(CallbackKind.PAYMENT, params));
    }

    @Test
    void otherAppIdIsNotForUs() {
        Map<String, String> params = payment("TRADE_SUCCESS", "88.00", "utf-8");
        params.put("app_id", "2021000000000002");
        assertEquals(new ChannelVerdict.BadSignature("app_id is not this merchant's"), read(CallbackKind.PAYMENT, params));
    }

    @Test
    void duplicateParameterIsRefused() {
        CallbackRequest request = request(CallbackKind.PAYMENT, signed(payment("TRADE_SUCCESS", "0.01", "utf-8"), ALIPAY.getPrivate()));
        byte[] body = (new String(request.body(), StandardCharsets.US_ASCII) + "&total_amount=88.00").getBytes(StandardCharsets.US_ASCII);
        assertInstanceOf(ChannelVerdict.BadSignature.class, channel.read(new CallbackRequest("default", CallbackKind.PAYMENT, request.headers(), body)));
    }

    @Test
    void undecodableBodiesAreBadSignaturesWithoutException() {
        for (String body : new String[] {"", "%", "a=%zz", "charset=ebcdic&sign=x", "&&&", "=", "sign=%E4"}) {
            ChannelVerdict verdict = channel.read(new CallbackRequest("default", CallbackKind.PAYMENT, Map.of(), body.getBytes(StandardCharsets.US_ASCII)));
            assertInstanceOf(ChannelVerdict.BadSignature.class, verdict, body);
        }
    }

    @Test
    void signedButIncompleteIsMalformed() {
        Map<String, String> params = payment("TRADE_SUCCESS", "88.00", "utf-8");
        params.remove("out_trade_no");
        assertEquals(new ChannelVerdict.Malformed("missing out_trade_no"), read(CallbackKind.PAYMENT, params));
    }

    @Test
    void refundFeeIsTheRunningTotalNotTheRefundsAmount() {
        Notice.Refund refund = accepted(read(CallbackKind.REFUND, refund("0.01")), Notice.Refund.class);
        assertEquals(new Notice.Refund("default", ChannelId.ALIPAY, new RefundNo("REFUND-1"), null,
                new ChannelTradeNo("2026010122001400000000000001"), new OutTradeNo("ORDER-1"), Notice.RefundResult.SUCCEEDED,
                null, new Money(new BigDecimal("0.01"), "CNY")), refund);
    }

    @Test
    void whatANoticeIsDecidesItsLedgerWhereverItArrives() {
        assertEquals(new BigDecimal("88.00"),
                accepted(read(CallbackKind.PAYMENT, refund("88.00")), Notice.Refund.class).refundedTotal().amount());
        assertEquals(new BigDecimal("88.00"),
                accepted(read(CallbackKind.REFUND, payment("TRADE_SUCCESS", "88.00", "utf-8")), Notice.Payment.class).amount().amount());
    }

    @Test
    void aFullRefundArrivesAsTradeClosedAndIsStillARefund() {
        Map<String, String> params = refund("88.00");
        params.put("trade_status", "TRADE_CLOSED");
        params.put("gmt_close", "2026-12-02 10:40:00");
        assertEquals(new BigDecimal("88.00"),
                accepted(read(CallbackKind.PAYMENT, params), Notice.Refund.class).refundedTotal().amount());
    }

    @Test
    void servesOnlyConfiguredMerchants() {
        assertTrue(channel.serves("default"));
        assertFalse(channel.serves("other"));
        CallbackRequest request = request(CallbackKind.PAYMENT, signed(payment("TRADE_SUCCESS", "88.00", "utf-8"), ALIPAY.getPrivate()));
        assertInstanceOf(ChannelVerdict.BadSignature.class,
                channel.read(new CallbackRequest("other", CallbackKind.PAYMENT, request.headers(), request.body())));
    }

    @Test
    void charsetDefaultsToUtf8() {
        Map<String, String> params = payment("TRADE_SUCCESS", "88.00", "utf-8");
        params.remove("charset");
        accepted(read(CallbackKind.PAYMENT, params), Notice.Payment.class);
    }

    @Test
    void answersInAlipayFormat() {
        assertEquals(new FormattedAnswer(200, "text/plain", "success"), channel.answer(AnswerKind.ACCEPTED));
        assertEquals(new FormattedAnswer(401, "text/plain", "fail"), channel.answer(AnswerKind.BAD_SIGNATURE));
        assertEquals(new FormattedAnswer(400, "text/plain", "fail"), channel.answer(AnswerKind.MALFORMED));
        assertEquals(new FormattedAnswer(503, "text/plain", "fail"), channel.answer(AnswerKind.BUSY));
        assertEquals(new FormattedAnswer(500, "text/plain", "fail"), channel.answer(AnswerKind.STORE_FAILED));
        assertEquals(new FormattedAnswer(413, "text/plain", "fail"), channel.answer(AnswerKind.TOO_LARGE));
        assertEquals(new FormattedAnswer(404, "text/plain", "fail"), channel.answer(AnswerKind.UNKNOWN_MERCHANT));
    }
}
