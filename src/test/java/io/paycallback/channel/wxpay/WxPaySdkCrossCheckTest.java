package io.paycallback.channel.wxpay;

import com.wechat.pay.java.core.cipher.AeadAesCipher;
import com.wechat.pay.java.core.cipher.RSASigner;
import com.wechat.pay.java.core.notification.NotificationParser;
import com.wechat.pay.java.core.notification.RSAPublicKeyNotificationConfig;
import com.wechat.pay.java.core.notification.RequestParam;
import com.wechat.pay.java.service.payments.model.Transaction;
import com.wechat.pay.java.service.refund.model.RefundNotification;
import io.paycallback.channel.CallbackKind;
import io.paycallback.channel.CallbackRequest;
import io.paycallback.channel.Endpoint;
import io.paycallback.channel.Notice;
import io.paycallback.channel.TestKeys;
import io.paycallback.channel.ChannelVerdict;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;

import static io.paycallback.channel.wxpay.WxPayFixture.API_V3_KEY;
import static io.paycallback.channel.wxpay.WxPayFixture.ASSOCIATED_DATA;
import static io.paycallback.channel.wxpay.WxPayFixture.MCHID;
import static io.paycallback.channel.wxpay.WxPayFixture.NONCE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Our verification and decryption against the official wechatpay-java SDK, in both directions. */
class WxPaySdkCrossCheckTest {

    private static final KeyPair PLATFORM = TestKeys.rsa();
    private static final String SERIAL = "PUB_KEY_ID_0114232134912410000000000000";
    /** The SDK checks timestamps against the system clock, so this test lives in the present. */
    private static final Instant NOW = Instant.now();

    private final WxPayChannel channel = new WxPayChannel(
            Map.of("default", new WxPayMerchant(MCHID, WxPayMerchant.apiV3Key(API_V3_KEY), Map.of(SERIAL, PLATFORM.getPublic()))),
            Clock.fixed(NOW, ZoneOffset.UTC));

    private final NotificationParser sdk = new NotificationParser(new RSAPublicKeyNotificationConfig.Builder()
            .publicKey(PLATFORM.getPublic())
            .publicKeyId(SERIAL)
            .apiV3Key(API_V3_KEY)
            .build());

    private static RequestParam sdkParam(CallbackRequest request) {
        return new RequestParam.Builder()
                .serialNumber(request.header("Wechatpay-Serial"))
                .nonce(request.header("Wechatpay-Nonce"))
                .signature(request.header("Wechatpay-Signature"))
                .timestamp(request.header("Wechatpay-Timestamp"))
                .signType(request.header("Wechatpay-Signature-Type"))
                .body(new String(request.body(), StandardCharsets.UTF_8))
                .build();
    }

    @Test
    void paymentTheSdkAcceptsWeAcceptWithTheSameFields() {
        String body = WxPayFixture.paymentBody(WxPayFixture.payment("SUCCESS", 8800));
        CallbackRequest request = WxPayFixture.signed(CallbackKind.PAYMENT, PLATFORM.getPrivate(), SERIAL, NOW.getEpochSecond(), body);

        Transaction transaction = sdk.parse(sdkParam(request), Transaction.class);
        Notice.Payment payment = (Notice.Payment) assertInstanceOf(ChannelVerdict.Accepted.class, channel.read(request)).notice();

        assertEquals(transaction.getOutTradeNo(), payment.outTradeNo().value());
        assertEquals(transaction.getTransactionId(), payment.channelTradeNo().value());
        assertEquals(transaction.getTradeState().name(), payment.tradeState());
        assertEquals(BigDecimal.valueOf(transaction.getAmount().getTotal(), 2), payment.amount().amount());
        assertEquals(transaction.getAmount().getCurrency(), payment.amount().currency());
    }

    @Test
    void refundTheSdkAcceptsWeAcceptWithTheSameFields() {
        String body = WxPayFixture.body("REFUND.SUCCESS", WxPayFixture.encrypt(WxPayFixture.refund("SUCCESS", 1), API_V3_KEY));
        CallbackRequest request = WxPayFixture.signed(CallbackKind.REFUND, PLATFORM.getPrivate(), SERIAL, NOW.getEpochSecond(), body);

        RefundNotification notification = sdk.parse(sdkParam(request), RefundNotification.class);
        Notice.Refund refund = (Notice.Refund) assertInstanceOf(ChannelVerdict.Accepted.class, channel.read(request)).notice();

        assertEquals(notification.getOutRefundNo(), refund.refundNo().value());
        assertEquals(notification.getRefundId(), refund.channelRefundId());
        assertEquals(notification.getTransactionId(), refund.channelTradeNo().value());
        assertEquals(BigDecimal.valueOf(notification.getAmount().getRefund(), 2), refund.amount().amount());
    }

    /**
     * A partner's notice, decrypted by the SDK with the partner's key into its partnerpayments {@code Transaction}: the
     * sub-merchant it names is the one whose merchant we store it for, and the payment's fields are the same.
     */
    @Test
    void aPartnerPaymentTheSdkReadsWeReadForTheSubMerchantItNames() {
        String partnerKey = "p9o8i7u6y5t4r3e2w1q0p9o8i7u6y5t4";
        WxPayChannel partner = new WxPayChannel(Map.of("market", new WxPayMerchant("1230000109",
                WxPayMerchant.apiV3Key(partnerKey), Map.of(SERIAL, PLATFORM.getPublic()), new Endpoint.Platform(Map.of("1900000201", "shop-a")))),
                Clock.fixed(NOW, ZoneOffset.UTC));
        NotificationParser partnerSdk = new NotificationParser(new RSAPublicKeyNotificationConfig.Builder()
                .publicKey(PLATFORM.getPublic()).publicKeyId(SERIAL).apiV3Key(partnerKey).build());
        String body = WxPayFixture.body("TRANSACTION.SUCCESS", WxPayFixture.encrypt(
                WxPayFixture.partnerPayment("1230000109", "1900000201", "SUCCESS", 8800), partnerKey));
        CallbackRequest signed = WxPayFixture.signed(CallbackKind.PAYMENT, PLATFORM.getPrivate(), SERIAL, NOW.getEpochSecond(), body);

        com.wechat.pay.java.service.partnerpayments.jsapi.model.Transaction transaction =
                partnerSdk.parse(sdkParam(signed), com.wechat.pay.java.service.partnerpayments.jsapi.model.Transaction.class);
        Notice.Payment payment = (Notice.Payment) assertInstanceOf(ChannelVerdict.Accepted.class, partner.read(
                new CallbackRequest("market", CallbackKind.PAYMENT, signed.headers(), signed.body()))).notice();

        assertEquals("1230000109", transaction.getSpMchid());
        assertEquals("1900000201", transaction.getSubMchid());
        assertEquals("shop-a", payment.merchantId());
        assertEquals(transaction.getOutTradeNo(), payment.outTradeNo().value());
        assertEquals(transaction.getTransactionId(), payment.channelTradeNo().value());
        assertEquals(BigDecimal.valueOf(transaction.getAmount().getTotal(), 2), payment.amount().amount());
    }

    @Test
    void sdkSignedAndSdkEncryptedNoticeIsAccepted() {
        String plaintext = WxPayFixture.payment("SUCCESS", 1);
        String ciphertext = new AeadAesCipher(API_V3_KEY.getBytes(StandardCharsets.UTF_8)).encrypt(
                ASSOCIATED_DATA.getBytes(StandardCharsets.UTF_8), NONCE.getBytes(StandardCharsets.UTF_8),
                plaintext.getBytes(StandardCharsets.UTF_8));
        String body = WxPayFixture.body("TRANSACTION.SUCCESS", ciphertext);
        long timestamp = NOW.getEpochSecond();
        String nonce = "sdk-nonce";
        String signature = new RSASigner(SERIAL, PLATFORM.getPrivate()).sign(timestamp + "\n" + nonce + "\n" + body + "\n").getSign();
        Map<String, String> headers = new HashMap<>(WxPayFixture.headers(SERIAL, timestamp, signature));
        headers.put("wechatpay-nonce", nonce);

        ChannelVerdict verdict = channel.read(new CallbackRequest("default", CallbackKind.PAYMENT, headers, body.getBytes(StandardCharsets.UTF_8)));

        assertEquals(new BigDecimal("0.01"), ((Notice.Payment) assertInstanceOf(ChannelVerdict.Accepted.class, verdict).notice()).amount().amount());
    }

    @Test
    void sdkDecryptsWhatTheFixtureEncrypts() {
        String plaintext = WxPayFixture.payment("SUCCESS", 8800);
        String decrypted = new AeadAesCipher(API_V3_KEY.getBytes(StandardCharsets.UTF_8)).decrypt(
                ASSOCIATED_DATA.getBytes(StandardCharsets.UTF_8), NONCE.getBytes(StandardCharsets.UTF_8),
                Base64.getDecoder().decode(WxPayFixture.encrypt(plaintext, API_V3_KEY)));
        assertEquals(plaintext, decrypted);
    }

    @Test
    void tamperedNoticeIsRefusedByBoth() {
        String body = WxPayFixture.paymentBody(WxPayFixture.payment("SUCCESS", 8800));
        CallbackRequest signed = WxPayFixture.signed(CallbackKind.PAYMENT, PLATFORM.getPrivate(), SERIAL, NOW.getEpochSecond(), body);
        CallbackRequest tampered = new CallbackRequest("default", CallbackKind.PAYMENT, signed.headers(),
                body.replace("EV-018", "EV-666").getBytes(StandardCharsets.UTF_8));

        assertThrows(RuntimeException.class, () -> sdk.parse(sdkParam(tampered), Transaction.class));
        assertInstanceOf(ChannelVerdict.BadSignature.class, channel.read(tampered));
    }
}
