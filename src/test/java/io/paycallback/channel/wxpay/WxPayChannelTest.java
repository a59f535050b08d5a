package io.paycallback.channel.wxpay;

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
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.Map;

import static io.paycallback.channel.wxpay.WxPayFixture.API_V3_KEY;
import static io.paycallback.channel.wxpay.WxPayFixture.MCHID;
import static io.paycallback.channel.wxpay.WxPayFixture.body;
import static io.paycallback.channel.wxpay.WxPayFixture.encrypt;
import static io.paycallback.channel.wxpay.WxPayFixture.payment;
import static io.paycallback.channel.wxpay.WxPayFixture.paymentBody;
import static io.paycallback.channel.wxpay.WxPayFixture.refund;
import static io.paycallback.channel.wxpay.WxPayFixture.signed;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

class WxPayChannelTest {

    private static final KeyPair CURRENT = TestKeys.rsa();
    private static final KeyPair NEXT = TestKeys.rsa();
    private static final KeyPair STRANGER = TestKeys.rsa();
    private static final String SERIAL = "5157F09EFDC096DE15EBE81A47057A7232F1B8E1";
    private static final String NEXT_SERIAL = "PUB_KEY_ID_0114232134912410000000000000";
    private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");
    private static final long T = NOW.getEpochSecond();

    private final WxPayChannel channel = channel(API_V3_KEY);

    private static WxPayChannel channel(String apiV3Key) {
        WxPayMerchant merchant = new WxPayMerchant(MCHID, WxPayMerchant.apiV3Key(apiV3Key), Map.of(
                SERIAL, PublicKeys.parse(TestKeys.pem(CURRENT.getPublic()), "k"),
                NEXT_SERIAL, PublicKeys.parse(TestKeys.base64Der(NEXT.getPublic()), "k")));
        return new WxPayChannel(Map.of("default", merchant), Clock.fixed(NOW, ZoneOffset.UTC));
    }

    private static CallbackRequest paid(long totalFen) {
        return signed(CallbackKind.PAYMENT, CURRENT.getPrivate(), SERIAL, T, paymentBody(payment("SUCCESS", totalFen)));
    }

    private static <N extends Notice> N accepted(ChannelVerdict verdict, Class<N> type) {
        return assertInstanceOf(type, assertInstanceOf(ChannelVerdict.Accepted.class, verdict).notice());
    }

    @Test
    void acceptsSignedPayment() {
        Notice.Payment payment = accepted(channel.read(paid(8800)), Notice.Payment.class);
        assertEquals(new Notice.Payment("default", ChannelId.WXPAY, new ChannelTradeNo("4200000001202601010000000001"), new OutTradeNo("ORDER-1"),
                "SUCCESS", new Money(new BigDecimal("88.00"), "CNY")), payment);
    }

    @Test
    void amountsAreExactYuan() {
        assertEquals(new BigDecimal("0.01"), accepted(channel.read(paid(1)), Notice.Payment.class).amount().amount());
        assertEquals(new BigDecimal("88.00"), accepted(channel.read(paid(8800)), Notice.Payment.class).amount().amount());
    }

    @Test
    void fractionalFenIsMalformed() {
        String plaintext = payment("SUCCESS", 8800).replace("\"total\":8800", "\"total\":88.5");
        CallbackRequest request = signed(CallbackKind.PAYMENT, CURRENT.getPrivate(), SERIAL, T, paymentBody(plaintext));
        assertInstanceOf(ChannelVerdict.Malformed.class, channel.read(request));
    }

    @Test
    void rejectsTamperedBody() {
        CallbackRequest request = paid(8800);
        byte[] body = new String(request.body(), StandardCharsets.UTF_8).replace("EV-018", "EV-019").getBytes(StandardCharsets.UTF_8);
        ChannelVerdict verdict = channel.read(new CallbackRequest("default", CallbackKind.PAYMENT, request.headers(), body));
        assertEquals(new ChannelVerdict.BadSignature("signature does not match"), verdict);
    }

    @Test
    void rejectsSignatureOfAnotherKey() {
        CallbackRequest request = signed(CallbackKind.PAYMENT, STRANGER.getPrivate(), SERIAL, T, paymentBody(payment("SUCCESS", 8800)));
        assertInstanceOf(ChannelVerdict.BadSignature.class, channel.read(request));
    }

    @Test
    void rejectsUnknownSerial() {
        CallbackRequest request = signed(CallbackKind.PAYMENT, CURRENT.getPrivate(), "UNKNOWN", T, paymentBody(payment("SUCCESS", 8800)));
        assertEquals(new ChannelVerdict.BadSignature("unknown Wechatpay-Serial"), channel.read(request));
    }

    @Test
    void acceptsEveryConfiguredSerialDuringRotation() {
        CallbackRequest request = signed(CallbackKind.PAYMENT, NEXT.getPrivate(), NEXT_SERIAL, T, paymentBody(payment("SUCCESS", 8800)));
        accepted(channel.read(request), Notice.Payment.class);
        CallbackRequest crossed = signed(CallbackKind.PAYMENT, NEXT.getPrivate(), SERIAL, T, paymentBody(payment("SUCCESS", 8800)));
        assertInstanceOf(ChannelVerdict.BadSignature.class, channel.read(crossed));
    }

    @ParameterizedTest
    @ValueSource(strings = {"wechatpay-timestamp", "wechatpay-nonce", "wechatpay-signature", "wechatpay-serial"})
    void missingHeaderFailsClosed(String header) {
        CallbackRequest request = paid(8800);
        Map<String, String> headers = new HashMap<>(request.headers());
        headers.remove(header);
        ChannelVerdict verdict = channel.read(new CallbackRequest("default", CallbackKind.PAYMENT, headers, request.body()));
        assertInstanceOf(ChannelVerdict.BadSignature.class, verdict);
        headers.put(header, "");
        assertInstanceOf(ChannelVerdict.BadSignature.class, channel.read(new CallbackRequest("default", CallbackKind.PAYMENT, headers, request.body())));
    }

    @Test
    void signatureTypeDefaultsToRsaAndOthersAreRejected() {
        CallbackRequest request = paid(8800);
        Map<String, String> headers = new HashMap<>(request.headers());
        headers.remove("wechatpay-signature-type");
        accepted(channel.read(new CallbackRequest("default", CallbackKind.PAYMENT, headers, request.body())), Notice.Payment.class);
        headers.put("wechatpay-signature-type", "WECHATPAY2-SM2-WITH-SM3");
        assertInstanceOf(ChannelVerdict.BadSignature.class, channel.read(new CallbackRequest("default", CallbackKind.PAYMENT, headers, request.body())));
    }

    @Test
    void signTestProbeIsABadSignatureNotAnException() {
        CallbackRequest request = paid(8800);
        Map<String, String> headers = new HashMap<>(request.headers());
        headers.put("wechatpay-signature", "WECHATPAY/SIGNTEST/" + headers.get("wechatpay-signature"));
        ChannelVerdict verdict = channel.read(new CallbackRequest("default", CallbackKind.PAYMENT, headers, request.body()));
        assertEquals(new ChannelVerdict.BadSignature("signature probe"), verdict);
        assertEquals(401, channel.answer(AnswerKind.BAD_SIGNATURE).status());
    }

    @ParameterizedTest
    @ValueSource(longs = {-301, 301, -86_400, 86_400})
    void rejectsStaleAndFutureTimestamps(long skewSeconds) {
        CallbackRequest request = signed(CallbackKind.PAYMENT, CURRENT.getPrivate(), SERIAL, T + skewSeconds, paymentBody(payment("SUCCESS", 8800)));
        assertEquals(new ChannelVerdict.BadSignature("Wechatpay-Timestamp outside tolerance"), channel.read(request));
    }

    @ParameterizedTest
    @ValueSource(longs = {-300, -299, 299, 300})
    void acceptsTimestampsJustInsideFiveMinutes(long skewSeconds) {
        CallbackRequest request = signed(CallbackKind.PAYMENT, CURRENT.getPrivate(), SERIAL, T + skewSeconds, paymentBody(payment("SUCCESS", 8800)));
        accepted(channel.read(request), Notice.Payment.class);
    }

    @Test
    void nonNumericTimestampIsBadSignature() {
        CallbackRequest request = paid(8800);
        Map<String, String> headers = new HashMap<>(request.headers());
        headers.put("wechatpay-timestamp", "yesterday");
        assertInstanceOf(ChannelVerdict.BadSignature.class, channel.read(new CallbackRequest("default", CallbackKind.PAYMENT, headers, request.body())));
    }

    @Test
    void wrongApiV3KeyIsMalformedWithoutException() {
        String body = body("TRANSACTION.SUCCESS", encrypt(payment("SUCCESS", 8800), "ffffffffffffffffffffffffffffffff"));
        CallbackRequest request = signed(CallbackKind.PAYMENT, CURRENT.getPrivate(), SERIAL, T, body);
        assertEquals(new ChannelVerdict.Malformed("resource does not decrypt"), channel.read(request));
    }

    @Test
    void signedButUnparseableBodyIsMalformed() {
        for (String body : new String[] {"not json", "[]", "{\"resource\":{}}",
                body("TRANSACTION.SUCCESS", encrypt("not json", API_V3_KEY)),
                body("TRANSACTION.SUCCESS", "%%%not-base64"),
                paymentBody(payment("SUCCESS", 8800)).replace("AEAD_AES_256_GCM", "AEAD_SM4_GCM")}) {
            CallbackRequest request = signed(CallbackKind.PAYMENT, CURRENT.getPrivate(), SERIAL, T, body);
            assertInstanceOf(ChannelVerdict.Malformed.class, channel.read(request), body);
        }
    }

    @Test
    void otherMerchantsMchidIsMalformed() {
        String plaintext = payment("SUCCESS", 8800).replace(MCHID, "1900000002");
        CallbackRequest request = signed(CallbackKind.PAYMENT, CURRENT.getPrivate(), SERIAL, T, paymentBody(plaintext));
        assertEquals(new ChannelVerdict.Malformed("mchid is not the configured merchant"), channel.read(request));
    }

    @ParameterizedTest
    @ValueSource(strings = {"NOTPAY", "CLOSED", "REFUND", "USERPAYING", "PAYERROR", "REVOKED", "SOMETHING_NEW"})
    void unpaidStatesAreIgnored(String tradeState) {
        CallbackRequest request = signed(CallbackKind.PAYMENT, CURRENT.getPrivate(), SERIAL, T, paymentBody(payment(tradeState, 8800)));
        accepted(channel.read(request), Notice.Ignored.class);
    }

    @Test
    void parsesSucceededRefund() {
        String body = body("REFUND.SUCCESS", encrypt(refund("SUCCESS", 1), API_V3_KEY));
        Notice.Refund refund = accepted(channel.read(signed(CallbackKind.REFUND, CURRENT.getPrivate(), SERIAL, T, body)), Notice.Refund.class);
        assertEquals(new Notice.Refund("default", ChannelId.WXPAY, new RefundNo("REFUND-1"), "50000000382019052709732678859",
                new ChannelTradeNo("4200000001202601010000000001"), new OutTradeNo("ORDER-1"), Notice.RefundResult.SUCCEEDED, new Money(new BigDecimal("0.01"), "CNY"), null), refund);
    }

    @ParameterizedTest
    @ValueSource(strings = {"CLOSED", "ABNORMAL"})
    void closedAndAbnormalRefundsFailed(String status) {
        String body = body("REFUND." + status, encrypt(refund(status, 8800), API_V3_KEY));
        Notice.Refund refund = accepted(channel.read(signed(CallbackKind.REFUND, CURRENT.getPrivate(), SERIAL, T, body)), Notice.Refund.class);
        assertEquals(Notice.RefundResult.FAILED, refund.result());
        assertEquals(new BigDecimal("88.00"), refund.amount().amount());
    }

    @Test
    void processingRefundIsPendingNeverAResult() {
        String body = body("REFUND.PROCESSING", encrypt(refund("PROCESSING", 8800), API_V3_KEY));
        Notice.RefundPending pending = accepted(channel.read(signed(CallbackKind.REFUND, CURRENT.getPrivate(), SERIAL, T, body)),
                Notice.RefundPending.class);
        assertEquals(new BigDecimal("88.00"), pending.amount().amount());
        assertEquals("CNY", pending.amount().currency());
    }

    @Test
    void whatANoticeIsDecidesItsLedgerWhereverItArrives() {
        String refundBody = body("REFUND.SUCCESS", encrypt(refund("SUCCESS", 8800), API_V3_KEY));
        accepted(channel.read(signed(CallbackKind.PAYMENT, CURRENT.getPrivate(), SERIAL, T, refundBody)), Notice.Refund.class);
        String paymentBody = paymentBody(payment("SUCCESS", 8800));
        accepted(channel.read(signed(CallbackKind.REFUND, CURRENT.getPrivate(), SERIAL, T, paymentBody)), Notice.Payment.class);
    }

    @Test
    void servesOnlyConfiguredMerchants() {
        assertTrue(channel.serves("default"));
        assertFalse(channel.serves("other"));
        CallbackRequest request = paid(8800);
        ChannelVerdict verdict = channel.read(new CallbackRequest("other", CallbackKind.PAYMENT, request.headers(), request.body()));
        assertInstanceOf(ChannelVerdict.BadSignature.class, verdict);
    }

    @Test
    void reasonsNeverCarrySignatureOrBody() {
        CallbackRequest request = signed(CallbackKind.PAYMENT, STRANGER.getPrivate(), SERIAL, T, paymentBody(payment("SUCCESS", 8800)));
        String reason = ((ChannelVerdict.BadSignature) channel.read(request)).reason();
        assertFalse(reason.contains(request.header("Wechatpay-Signature")));
        assertFalse(reason.contains("ORDER-1"));
    }

    @Test
    void answersInWeChatPayFormat() {
        assertEquals(new FormattedAnswer(200, "application/json", "{\"code\":\"SUCCESS\",\"message\":\"\u6210\u529f\"}"), channel.answer(AnswerKind.ACCEPTED));
        assertFail(401, channel.answer(AnswerKind.BAD_SIGNATURE));
        assertFail(400, channel.answer(AnswerKind.MALFORMED));
        assertFail(503, channel.answer(AnswerKind.BUSY));
        assertFail(500, channel.answer(AnswerKind.STORE_FAILED));
        assertFail(413, channel.answer(AnswerKind.TOO_LARGE));
        assertFail(404, channel.answer(AnswerKind.UNKNOWN_MERCHANT));
    }

    private static void assertFail(int status, FormattedAnswer answer) {
        assertEquals(status, answer.status());
        assertEquals("application/json", answer.contentType());
        assertTrue(answer.body().startsWith("{\"code\":\"FAIL\",\"message\":\""), answer.body());
    }
}
