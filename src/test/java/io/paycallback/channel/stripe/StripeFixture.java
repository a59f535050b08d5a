package io.paycallback.channel.stripe;

import io.paycallback.channel.CallbackKind;
import io.paycallback.channel.CallbackRequest;
import io.paycallback.testsupport.ProviderSigner;

import java.nio.charset.StandardCharsets;
import java.util.Map;

/** Stripe events and {@code Stripe-Signature} headers, signed with the JDK only. */
final class StripeFixture {

    static final String SECRET = "whsec_test_5f1bd8a0e3c44a1b9a7c2e6d0f3b8a91";
    static final String NEXT_SECRET = "whsec_test_rolled_9d2c7b1a6e5f4d3c2b1a0f9e8d7c";

    private StripeFixture() {
    }

    static String paymentIntentSucceeded(long amountReceived, String currency) {
        return """
                {"id":"evt_1","object":"event","api_version":"2024-06-20","created":1767225600,"type":"payment_intent.succeeded",\
                "data":{"object":{"id":"pi_3Abc","object":"payment_intent","amount":%d,"amount_received":%d,"currency":"%s",\
                "status":"succeeded","metadata":{"out_trade_no":"ORDER-1"}}},"livemode":false}"""
                .formatted(amountReceived, amountReceived, currency);
    }

    static String event(String type, String object) {
        return """
                {"id":"evt_2","object":"event","created":1767225600,"type":"%s","data":{"object":%s},"livemode":false}"""
                .formatted(type, object);
    }

    static String refundObject(String status, long amount, String metadata) {
        return """
                {"id":"re_1","object":"refund","amount":%d,"charge":"ch_1","created":1767225700,"currency":"usd",\
                "metadata":%s,"payment_intent":"pi_3Abc","status":"%s"}""".formatted(amount, metadata, status);
    }

    static String hmac(String secret, long timestamp, String body) {
        return ProviderSigner.hmacSha256Hex(secret, timestamp + "." + body);
    }

    static CallbackRequest request(CallbackKind kind, String signatureHeader, String body) {
        Map<String, String> headers = signatureHeader == null ? Map.of() : Map.of("stripe-signature", signatureHeader);
        return new CallbackRequest("default", kind, headers, body.getBytes(StandardCharsets.UTF_8));
    }

    static CallbackRequest signed(CallbackKind kind, String secret, long timestamp, String body) {
        return request(kind, "t=" + timestamp + ",v1=" + hmac(secret, timestamp, body), body);
    }
}
