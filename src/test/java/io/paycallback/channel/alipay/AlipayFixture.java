package io.paycallback.channel.alipay;

import io.paycallback.channel.CallbackKind;
import io.paycallback.channel.CallbackRequest;
import io.paycallback.channel.TestKeys;

import java.net.URLEncoder;
import java.nio.charset.Charset;
import java.security.PrivateKey;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;

/** Alipay notices as Alipay posts them: form-encoded in the declared charset, RSA2-signed over the sorted parameters. */
final class AlipayFixture {

    static final String APP_ID = "2021000000000001";

    private AlipayFixture() {
    }

    static Map<String, String> payment(String tradeStatus, String totalAmount, String charset) {
        Map<String, String> params = new LinkedHashMap<>();
        params.put("gmt_create", "2026-01-01 07:59:30");
        params.put("charset", charset);
        params.put("gmt_payment", "2026-01-01 08:00:00");
        params.put("notify_time", "2026-01-01 08:00:01");
        params.put("subject", "\u6d4b\u8bd5\u5546\u54c1 & \u793c\u54c1=1");
        params.put("buyer_id", "2088102000000000");
        params.put("passback_params", "");
        params.put("invoice_amount", totalAmount);
        params.put("version", "1.0");
        params.put("notify_id", "2026010100222080001000000000000000");
        params.put("notify_type", "trade_status_sync");
        params.put("out_trade_no", "ORDER-1");
        params.put("total_amount", totalAmount);
        params.put("trade_status", tradeStatus);
        params.put("trade_no", "2026010122001400000000000001");
        params.put("auth_app_id", APP_ID);
        params.put("receipt_amount", totalAmount);
        params.put("app_id", APP_ID);
        params.put("sign_type", "RSA2");
        params.put("seller_id", "2088102000000001");
        return params;
    }

    static Map<String, String> refund(String refundFee) {
        Map<String, String> params = payment("TRADE_SUCCESS", "88.00", "utf-8");
        params.put("out_biz_no", "REFUND-1");
        params.put("refund_fee", refundFee);
        params.put("gmt_refund", "2026-01-02 10:00:00.123");
        return params;
    }

    /** Signs with the JDK only, independent of the code under test. */
    static Map<String, String> signed(Map<String, String> params, PrivateKey key) {
        Charset charset = Charset.forName(params.getOrDefault("charset", "utf-8"));
        Map<String, String> signed = new LinkedHashMap<>(params);
        signed.put("sign", TestKeys.sha256WithRsa(key, AlipayChannel.signedContent(params).getBytes(charset)));
        return signed;
    }

    static byte[] form(Map<String, String> params) {
        Charset charset = Charset.forName(params.getOrDefault("charset", "utf-8"));
        return params.entrySet().stream()
                .map(e -> URLEncoder.encode(e.getKey(), charset) + "=" + URLEncoder.encode(e.getValue(), charset))
                .collect(Collectors.joining("&"))
                .getBytes(charset);
    }

    static CallbackRequest request(CallbackKind kind, Map<String, String> signedParams) {
        return new CallbackRequest("default", kind, Map.of("content-type", "application/x-www-form-urlencoded"), form(signedParams));
    }
}
