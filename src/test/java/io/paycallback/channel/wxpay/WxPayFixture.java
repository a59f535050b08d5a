package io.paycallback.channel.wxpay;

import io.paycallback.channel.CallbackKind;
import io.paycallback.channel.CallbackRequest;
import io.paycallback.channel.Endpoint;
import io.paycallback.testsupport.ProviderSigner;

import java.nio.charset.StandardCharsets;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.Map;

/** Builds WeChat Pay v3 notices the way WeChat Pay does: encrypted resource, signed headers. */
final class WxPayFixture {

    static final String MCHID = "1900000001";
    static final String API_V3_KEY = "0123456789abcdefABCDEF0123456789";
    static final String NONCE = "5K8264ILTKCH";
    static final String ASSOCIATED_DATA = "transaction";

    private WxPayFixture() {
    }

    static String payment(String tradeState, long totalFen) {
        return """
                {"mchid":"%s","appid":"wxd678efh567hg6787","out_trade_no":"ORDER-1","transaction_id":"4200000001202601010000000001",\
                "trade_type":"JSAPI","trade_state":"%s","trade_state_desc":"\u652f\u4ed8\u6210\u529f","success_time":"2026-01-01T08:00:00+08:00",\
                "payer":{"openid":"oUpF8uMuAJO_M2pxb1Q9zNjWeS6o"},"amount":{"total":%d,"payer_total":%d,"currency":"CNY","payer_currency":"CNY"}}"""
                .formatted(MCHID, tradeState, totalFen, totalFen);
    }

    static String refund(String refundStatus, long refundFen) {
        return """
                {"mchid":"%s","out_trade_no":"ORDER-1","transaction_id":"4200000001202601010000000001","out_refund_no":"REFUND-1",\
                "refund_id":"50000000382019052709732678859","refund_status":"%s","success_time":"2026-01-01T09:00:00+08:00",\
                "user_received_account":"\u62db\u5546\u94f6\u884c\u4fe1\u7528\u5361","amount":{"total":8800,"refund":%d,"payer_total":8800,"payer_refund":%d}}"""
                .formatted(MCHID, refundStatus, refundFen, refundFen);
    }

    /** A partner's (服务商) payment plaintext, as wechatpay-java's partnerpayments {@code Transaction} reads it. */
    static String partnerPayment(String spMchid, String subMchid, String tradeState, long totalFen) {
        return """
                {"sp_appid":"wx8888888888888888","sp_mchid":"%s","sub_appid":"wxd678efh567hg6999","sub_mchid":"%s",\
                "out_trade_no":"ORDER-1","transaction_id":"4200000001202601010000000001","trade_type":"JSAPI",\
                "trade_state":"%s","trade_state_desc":"\u652f\u4ed8\u6210\u529f","success_time":"2026-01-01T08:00:00+08:00",\
                "payer":{"sp_openid":"oUpF8uMuAJO_M2pxb1Q9zNjWeS6o","sub_openid":"oUpF8uMuAJO_M2pxb1Q9zNjWeS6p"},\
                "amount":{"total":%d,"payer_total":%d,"currency":"CNY","payer_currency":"CNY"}}"""
                .formatted(spMchid, subMchid, tradeState, totalFen, totalFen);
    }

    /** A partner's refund plaintext: {@code sp_mchid} and {@code sub_mchid} instead of {@code mchid}. */
    static String partnerRefund(String spMchid, String subMchid, String refundStatus, long refundFen) {
        return refund(refundStatus, refundFen).replace("\"mchid\":\"" + MCHID + "\"",
                "\"sp_mchid\":\"" + spMchid + "\",\"sub_mchid\":\"" + subMchid + "\"");
    }

    /** A partner's number and APIv3 key, and its two sub-merchants, for the platform tests. */
    static final String SP_MCHID = "1230000109";
    static final String PARTNER_KEY = "p9o8i7u6y5t4r3e2w1q0p9o8i7u6y5t4";
    static final Map<String, String> SUB_MERCHANTS = Map.of("1900000201", "shop-a", "1900000202", "shop-b");

    /**
     * The direct merchant ({@code default}), a partner ({@code market}) with its two sub-merchants and a partner
     * ({@code bare}) configured before any sub-merchant, on one key.
     */
    static WxPayChannel withPartner(PublicKey wechatPay, String serial, Instant now) {
        return new WxPayChannel(Map.of(
                "default", new WxPayMerchant(MCHID, WxPayMerchant.apiV3Key(API_V3_KEY), Map.of(serial, wechatPay)),
                "market", new WxPayMerchant(SP_MCHID, WxPayMerchant.apiV3Key(PARTNER_KEY), Map.of(serial, wechatPay),
                        new Endpoint.Platform(SUB_MERCHANTS)),
                "shop-a", new WxPayMerchant(SP_MCHID, WxPayMerchant.apiV3Key(PARTNER_KEY), Map.of(serial, wechatPay),
                        new Endpoint.Platform(Map.of("1900000201", "shop-a"))),
                "bare", new WxPayMerchant(SP_MCHID, WxPayMerchant.apiV3Key(PARTNER_KEY), Map.of(serial, wechatPay),
                        new Endpoint.Platform(Map.of()))),
                Clock.fixed(now, ZoneOffset.UTC));
    }

    static String encrypt(String plaintext, String apiV3Key) {
        return ProviderSigner.aesGcm(apiV3Key.getBytes(StandardCharsets.UTF_8), NONCE, ASSOCIATED_DATA, plaintext);
    }

    static String body(String eventType, String ciphertext) {
        return """
                {"id":"EV-018","create_time":"2026-01-01T08:00:00+08:00","resource_type":"encrypt-resource",\
                "event_type":"%s","summary":"\u652f\u4ed8\u6210\u529f","resource":{"original_type":"transaction",\
                "algorithm":"AEAD_AES_256_GCM","ciphertext":"%s","associated_data":"%s","nonce":"%s"}}"""
                .formatted(eventType, ciphertext, ASSOCIATED_DATA, NONCE);
    }

    static String paymentBody(String plaintext) {
        return body("TRANSACTION.SUCCESS", encrypt(plaintext, API_V3_KEY));
    }

    static String signature(PrivateKey key, long timestamp, String nonce, String body) {
        return ProviderSigner.rsaSha256(key, (timestamp + "\n" + nonce + "\n" + body + "\n").getBytes(StandardCharsets.UTF_8));
    }

    static Map<String, String> headers(String serial, long timestamp, String signature) {
        Map<String, String> headers = new HashMap<>();
        headers.put("wechatpay-timestamp", Long.toString(timestamp));
        headers.put("wechatpay-nonce", "nonce-593BEC0C930BF1AFEB40B4A08C8FB242");
        headers.put("wechatpay-signature", signature);
        headers.put("wechatpay-serial", serial);
        headers.put("wechatpay-signature-type", "WECHATPAY2-SHA256-RSA2048");
        return headers;
    }

    static CallbackRequest signed(CallbackKind kind, PrivateKey key, String serial, long timestamp, String body) {
        String signature = signature(key, timestamp, "nonce-593BEC0C930BF1AFEB40B4A08C8FB242", body);
        return new CallbackRequest("default", kind, headers(serial, timestamp, signature), body.getBytes(StandardCharsets.UTF_8));
    }
}
