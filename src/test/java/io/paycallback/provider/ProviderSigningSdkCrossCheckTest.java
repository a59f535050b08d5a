package io.paycallback.provider;

import com.alipay.api.AlipayApiException;
import com.alipay.api.internal.util.AlipaySignature;
import com.wechat.pay.java.core.cipher.RSASigner;
import io.paycallback.channel.TestKeys;
import io.paycallback.trade.ChannelTradeNo;
import io.paycallback.trade.Money;
import io.paycallback.trade.OutTradeNo;
import io.paycallback.trade.RefundNo;
import org.junit.jupiter.api.Test;

import java.security.KeyPair;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Our request signing and answer checking against the providers' own SDKs, on the same keys and messages. */
class ProviderSigningSdkCrossCheckTest {

    private static final KeyPair MERCHANT = TestKeys.rsa();
    private static final KeyPair ALIPAY = TestKeys.rsa();

    @Test
    void wechatPayRequestSignatureIsTheSdksForTheSameMessage() {
        String body = "{\"transaction_id\":\"4200000001\",\"out_refund_no\":\"RFP7\",\"amount\":{\"refund\":500,\"total\":500,\"currency\":\"CNY\"}}";
        String message = WxPayAuthorization.message("POST", "/v3/refund/domestic/refunds", 1764729600L,
                "593BEC0C930BF1AFEB40B4A08C8FB242", body);
        String sdk = new RSASigner("5157F09EFDC096DE15EBE81A47057A7232F1B8E1", MERCHANT.getPrivate()).sign(message).getSign();
        assertEquals(sdk, WxPayAuthorization.signature(MERCHANT.getPrivate(), "POST", "/v3/refund/domestic/refunds",
                1764729600L, "593BEC0C930BF1AFEB40B4A08C8FB242", body));
    }

    @Test
    void wechatPayGetSignsAnEmptyBodyLine() {
        assertEquals("GET\n/v3/pay/transactions/out-trade-no/ORD1?mchid=1900000109\n1764729600\nN\n\n",
                WxPayAuthorization.message("GET", "/v3/pay/transactions/out-trade-no/ORD1?mchid=1900000109", 1764729600L, "N", ""));
    }

    @Test
    void alipaySdkVerifiesOurRequestSign() throws AlipayApiException {
        Map<String, String> params = new LinkedHashMap<>();
        params.put("app_id", "2021000000000001");
        params.put("method", "alipay.trade.refund");
        params.put("format", "JSON");
        params.put("charset", "utf-8");
        params.put("sign_type", "RSA2");
        params.put("timestamp", "2026-12-03 10:40:00");
        params.put("version", "1.0");
        params.put("biz_content", "{\"trade_no\":\"2026120322001\",\"refund_amount\":\"50.00\",\"out_request_no\":\"RFP9\",\"refund_reason\":\"支付后关单\"}");
        params.put("sign", AlipayGatewayMessages.sign(MERCHANT.getPrivate(), params));
        // rsaCheckV2 removes sign from the map it is given.
        assertTrue(AlipaySignature.rsaCheckV2(new LinkedHashMap<>(params), base64(MERCHANT.getPublic().getEncoded()),
                "utf-8", "RSA2"));
        params.put("biz_content", params.get("biz_content").replace("50.00", "60.00"));
        assertFalse(AlipaySignature.rsaCheckV2(new LinkedHashMap<>(params), base64(MERCHANT.getPublic().getEncoded()),
                "utf-8", "RSA2"));
    }

    @Test
    void weAcceptAnAnswerTheAlipaySdkSignedAndNothingAltered() throws AlipayApiException {
        String response = "{\"code\":\"10000\",\"msg\":\"Success\",\"trade_no\":\"2026120322001\",\"out_trade_no\":\"ORD1\","
                + "\"trade_status\":\"TRADE_SUCCESS\",\"total_amount\":\"88.00\",\"fund_bill_list\":[{\"fund_channel\":\"ALIPAYACCOUNT\",\"amount\":\"88.00\"}]}";
        String sign = AlipaySignature.rsaSign(response, base64(ALIPAY.getPrivate().getEncoded()), "utf-8", "RSA2");
        String body = "{\"alipay_trade_query_response\":" + response + ",\"sign\":\"" + sign + "\"}";
        AlipayGatewayMessages.GatewayAnswer answer = AlipayGatewayMessages.answer(body, "alipay.trade.query").orElseThrow();
        assertEquals(response, answer.responseJson());
        assertTrue(answer.verifies(ALIPAY.getPublic()));
        String altered = body.replace("88.00\",\"fund", "8.00\",\"fund");
        assertFalse(AlipayGatewayMessages.answer(altered, "alipay.trade.query").orElseThrow().verifies(ALIPAY.getPublic()));
    }

    @Test
    void theSignedTextIsCutOutWhereverTheSignStands() throws AlipayApiException {
        String response = "{\"code\":\"40004\",\"msg\":\"Business Failed\",\"sub_code\":\"ACQ.TRADE_NOT_EXIST\"}";
        String sign = AlipaySignature.rsaSign(response, base64(ALIPAY.getPrivate().getEncoded()), "utf-8", "RSA2");
        String body = "{\"sign\":\"" + sign + "\",\"alipay_trade_query_response\":" + response + "}";
        assertTrue(AlipayGatewayMessages.answer(body, "alipay.trade.query").orElseThrow().verifies(ALIPAY.getPublic()));
        assertTrue(AlipayGatewayMessages.answer("not json", "alipay.trade.query").isEmpty());
    }

    @Test
    void wechatPayCloseIsSignedOverItsPathAndMchidBodyAsTheSdkSigns() {
        String url = WxPayClient.closeUrl("ORD 1");
        String body = WxPayClient.closeBody("1900000109");
        assertEquals("/v3/pay/transactions/out-trade-no/ORD%201/close", url);
        assertEquals("{\"mchid\":\"1900000109\"}", body);
        String message = WxPayAuthorization.message("POST", url, 1764729600L, "593BEC0C930BF1AFEB40B4A08C8FB242", body);
        String sdk = new RSASigner("5157F09EFDC096DE15EBE81A47057A7232F1B8E1", MERCHANT.getPrivate()).sign(message).getSign();
        assertEquals(sdk, WxPayAuthorization.signature(MERCHANT.getPrivate(), "POST", url, 1764729600L,
                "593BEC0C930BF1AFEB40B4A08C8FB242", body));
    }

    @Test
    void wechatPayRefundQueryIsAGetSignedAsTheSdkSigns() {
        String url = "/v3/refund/domestic/refunds/RFP7";
        String message = WxPayAuthorization.message("GET", url, 1764729600L, "N", "");
        assertEquals("GET\n/v3/refund/domestic/refunds/RFP7\n1764729600\nN\n\n", message);
        String sdk = new RSASigner("5157F09EFDC096DE15EBE81A47057A7232F1B8E1", MERCHANT.getPrivate()).sign(message).getSign();
        assertEquals(sdk, WxPayAuthorization.signature(MERCHANT.getPrivate(), "GET", url, 1764729600L, "N", ""));
    }

    @Test
    void alipaySdkVerifiesOurCloseAndRefundQueryRequests() throws AlipayApiException {
        RefundOrder refund = new RefundOrder("default", new RefundNo("RFP9"), new OutTradeNo("ORD1"), new ChannelTradeNo("2026120322001"),
                new Money(new java.math.BigDecimal("20.00"), "CNY"), new Money(new java.math.BigDecimal("50.00"), "CNY"),
                "paid_after_close");
        for (Map.Entry<String, com.fasterxml.jackson.databind.node.ObjectNode> call : Map.of(
                "alipay.trade.close", AlipayClient.closeContent("ORD1"),
                "alipay.trade.fastpay.refund.query", AlipayClient.refundQueryContent(refund)).entrySet()) {
            Map<String, String> params = AlipayClient.signedParams("2021000000000001", MERCHANT.getPrivate(), call.getKey(),
                    call.getValue(), java.time.Instant.parse("2026-12-03T02:40:00Z"));
            assertEquals("2026-12-03 10:40:00", params.get("timestamp"));
            assertTrue(AlipaySignature.rsaCheckV2(new LinkedHashMap<>(params), base64(MERCHANT.getPublic().getEncoded()),
                    "utf-8", "RSA2"), call.getKey());
        }
        assertEquals("{\"trade_no\":\"2026120322001\",\"out_request_no\":\"RFP9\",\"query_options\":[\"gmt_refund_pay\"]}",
                AlipayClient.refundQueryContent(refund).toString());
    }

    /** A third-party app's call for a merchant: app_auth_token beside biz_content, covered by the sign the SDK checks. */
    @Test
    void alipaySdkVerifiesAThirdPartyAppsCallWithItsAppAuthToken() throws AlipayApiException {
        Map<String, String> params = AlipayClient.signedParams("2021000000000099",
                java.util.Optional.of("202612BBd1e2f3a4b5c6d7e8f9a0b1c2d3e4f5X07"), MERCHANT.getPrivate(), "alipay.trade.query",
                AlipayClient.closeContent("ORD1"), java.time.Instant.parse("2026-12-03T02:40:00Z"));
        assertEquals("202612BBd1e2f3a4b5c6d7e8f9a0b1c2d3e4f5X07", params.get("app_auth_token"));
        assertTrue(AlipaySignature.rsaCheckV2(new LinkedHashMap<>(params), base64(MERCHANT.getPublic().getEncoded()),
                "utf-8", "RSA2"));
        assertTrue(AlipaySignature.getSignCheckContentV2(new LinkedHashMap<>(params))
                .contains("app_auth_token=202612BBd1e2f3a4b5c6d7e8f9a0b1c2d3e4f5X07&app_id=2021000000000099&"));
    }

    private static String base64(byte[] der) {
        return Base64.getEncoder().encodeToString(der);
    }
}
