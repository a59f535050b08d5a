package io.paycallback.testsupport;

import javax.crypto.Cipher;
import javax.crypto.Mac;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import java.math.BigDecimal;
import java.net.URLEncoder;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.Signature;
import java.time.Instant;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;

/** Signs callbacks the way each provider documents it, so tests can play the provider. */
public final class ProviderSigner {

    private final ProviderKeys keys;

    public ProviderSigner(ProviderKeys keys) {
        this.keys = keys;
    }

    // ---- WeChat Pay API v3 ----

    public SignedCallback wxPayment(String outTradeNo, String transactionId, long totalFen, String tradeState, Instant now) {
        String plaintext = """
                {"mchid":"%s","appid":"wxd678efh567hg6787","out_trade_no":"%s","transaction_id":"%s",\
                "trade_type":"JSAPI","trade_state":"%s","trade_state_desc":"支付成功","bank_type":"CMC",\
                "success_time":"2026-12-02T10:34:56+08:00","payer":{"openid":"oUpF8uMuAJO_M2pxb1Q9zNjWeS6o"},\
                "amount":{"total":%d,"payer_total":%d,"currency":"CNY","payer_currency":"CNY"}}"""
                .formatted(keys.wxMchid(), outTradeNo, transactionId, tradeState, totalFen, totalFen);
        return wx("TRANSACTION.SUCCESS", "transaction", plaintext, now);
    }

    public SignedCallback wxRefund(String outTradeNo, String transactionId, String outRefundNo, String refundId,
                                   long refundFen, String refundStatus, Instant now) {
        return wxRefund(outTradeNo, transactionId, outRefundNo, refundId, refundFen, refundFen, refundStatus, now);
    }

    /** The refund notice's documented plaintext: amount.total is the payment's, amount.refund this refund's own. */
    public SignedCallback wxRefund(String outTradeNo, String transactionId, String outRefundNo, String refundId,
                                   long totalFen, long refundFen, String refundStatus, Instant now) {
        String plaintext = """
                {"mchid":"%s","out_trade_no":"%s","transaction_id":"%s","out_refund_no":"%s","refund_id":"%s",\
                "refund_status":"%s","success_time":"2026-12-02T10:34:56+08:00","user_received_account":"招商银行信用卡0403",\
                "amount":{"total":%d,"refund":%d,"payer_total":%d,"payer_refund":%d}}"""
                .formatted(keys.wxMchid(), outTradeNo, transactionId, outRefundNo, refundId, refundStatus,
                        totalFen, refundFen, totalFen, refundFen);
        return wx("REFUND.SUCCESS", "refund", plaintext, now);
    }

    /**
     * A partner's (服务商) payment notice as its notify_url receives it: naming the partner and the sub-merchant instead
     * of an mchid, encrypted with the partner's APIv3 key (wechatpay-java's partnerpayments {@code Transaction}).
     */
    public SignedCallback wxPartnerPayment(String subMchid, String outTradeNo, String transactionId, long totalFen,
                                           String tradeState, Instant now) {
        String plaintext = """
                {"sp_appid":"wx8888888888888888","sp_mchid":"%s","sub_appid":"wxd678efh567hg6999","sub_mchid":"%s",\
                "out_trade_no":"%s","transaction_id":"%s","trade_type":"JSAPI","trade_state":"%s",\
                "trade_state_desc":"支付成功","bank_type":"CMC","attach":"","success_time":"2026-12-02T10:34:56+08:00",\
                "payer":{"sp_openid":"oUpF8uMuAJO_M2pxb1Q9zNjWeS6o","sub_openid":"oUpF8uMuAJO_M2pxb1Q9zNjWeS6p"},\
                "amount":{"total":%d,"payer_total":%d,"currency":"CNY","payer_currency":"CNY"}}"""
                .formatted(ProviderKeys.WX_PARTNER_MCHID, subMchid, outTradeNo, transactionId, tradeState, totalFen, totalFen);
        return wx(ProviderKeys.WX_PARTNER_API_V3_KEY, "TRANSACTION.SUCCESS", "transaction", plaintext, now);
    }

    /** A partner's refund notice: {@code sp_mchid} and {@code sub_mchid}, the partner's APIv3 key. */
    public SignedCallback wxPartnerRefund(String subMchid, String outTradeNo, String transactionId, String outRefundNo,
                                          String refundId, long totalFen, long refundFen, String refundStatus, Instant now) {
        String plaintext = """
                {"sp_mchid":"%s","sub_mchid":"%s","out_trade_no":"%s","transaction_id":"%s","out_refund_no":"%s",\
                "refund_id":"%s","refund_status":"%s","success_time":"2026-12-02T10:34:56+08:00",\
                "user_received_account":"招商银行信用卡0403","amount":{"total":%d,"refund":%d,"payer_total":%d,"payer_refund":%d}}"""
                .formatted(ProviderKeys.WX_PARTNER_MCHID, subMchid, outTradeNo, transactionId, outRefundNo, refundId,
                        refundStatus, totalFen, refundFen, totalFen, refundFen);
        return wx(ProviderKeys.WX_PARTNER_API_V3_KEY, "REFUND.SUCCESS", "refund", plaintext, now);
    }

    /** One order of a combine payment (合单); {@code subMchid} null for a direct merchant's. */
    public record SubOrder(String mchid, String subMchid, String outTradeNo, String transactionId, String tradeState,
                           long totalFen) {
    }

    /**
     * A combine payment's notice (WxJava's {@code CombineNotifyResult}, partner sub-orders as its ecommerce
     * {@code CombineTransactionsResult}): each sub-order with its own state and {@code amount.total_amount}, encrypted
     * with the APIv3 key of the merchant or partner that made the combine.
     */
    public SignedCallback wxCombine(String apiV3Key, String combineMchid, String combineOutTradeNo,
                                    List<SubOrder> subOrders, Instant now) {
        StringBuilder orders = new StringBuilder();
        for (SubOrder sub : subOrders) {
            orders.append(orders.isEmpty() ? "" : ",").append("""
                    {"mchid":"%s",%s"trade_type":"JSAPI","trade_state":"%s","bank_type":"OTHERS","attach":"",\
                    "success_time":"2026-12-02T10:34:56+08:00","transaction_id":"%s","out_trade_no":"%s",\
                    "amount":{"total_amount":%d,"currency":"CNY","payer_amount":%d,"payer_currency":"CNY"}}"""
                    .formatted(sub.mchid(), sub.subMchid() == null ? "" : "\"sub_mchid\":\"" + sub.subMchid() + "\",",
                            sub.tradeState(), sub.transactionId(), sub.outTradeNo(), sub.totalFen(), sub.totalFen()));
        }
        String plaintext = """
                {"combine_appid":"wxd678efh567hg6787","combine_mchid":"%s","combine_out_trade_no":"%s",\
                "scene_info":{"device_id":"POS1:1"},"sub_orders":[%s],\
                "combine_payer_info":{"openid":"oUpF8uMuAJO_M2pxb1Q9zNjWeS6o"}}"""
                .formatted(combineMchid, combineOutTradeNo, orders);
        return wx(apiV3Key, "TRANSACTION.SUCCESS", "transaction", plaintext, now);
    }

    public SignedCallback wx(String eventType, String originalType, String plaintext, Instant now) {
        return wx(keys.apiV3Key(), eventType, originalType, plaintext, now);
    }

    /** A notice whose resource is encrypted with {@code apiV3Key}, signed with WeChat Pay's key. */
    public SignedCallback wx(String apiV3Key, String eventType, String originalType, String plaintext, Instant now) {
        String nonce = UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        String associatedData = originalType;
        String ciphertext = aesGcm(apiV3Key.getBytes(StandardCharsets.UTF_8), nonce, associatedData, plaintext);
        String body = """
                {"id":"EV-%s","create_time":"2026-12-02T10:34:56+08:00","resource_type":"encrypt-resource",\
                "event_type":"%s","summary":"支付成功","resource":{"original_type":"%s","algorithm":"AEAD_AES_256_GCM",\
                "ciphertext":"%s","associated_data":"%s","nonce":"%s"}}"""
                .formatted(UUID.randomUUID(), eventType, originalType, ciphertext, associatedData, nonce);
        return wxSigned(body, now);
    }

    public SignedCallback wxSigned(String body, Instant now) {
        String timestamp = Long.toString(now.getEpochSecond());
        String nonce = UUID.randomUUID().toString().replace("-", "");
        String message = timestamp + "\n" + nonce + "\n" + body + "\n";
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Wechatpay-Timestamp", timestamp);
        headers.put("Wechatpay-Nonce", nonce);
        headers.put("Wechatpay-Serial", keys.wxSerial());
        headers.put("Wechatpay-Signature-Type", "WECHATPAY2-SHA256-RSA2048");
        headers.put("Wechatpay-Signature", rsaSha256(keys.wxPrivate(), message.getBytes(StandardCharsets.UTF_8)));
        return new SignedCallback("wxpay", headers, "application/json", body.getBytes(StandardCharsets.UTF_8));
    }

    /** A platform certificate as {@code GET /v3/certificates} lists it. */
    public record WxCertificate(String serial, String pem, Instant effective, Instant expires) {
    }

    /**
     * The body of {@code GET /v3/certificates}: each certificate encrypted with the APIv3 key as WeChat Pay does it
     * (associated_data {@code certificate}, a 12-character nonce).
     */
    public static String wxCertificates(String apiV3Key, java.util.List<WxCertificate> certificates) {
        StringBuilder data = new StringBuilder();
        for (WxCertificate certificate : certificates) {
            String nonce = UUID.randomUUID().toString().replace("-", "").substring(0, 12);
            data.append(data.isEmpty() ? "" : ",").append("""
                    {"serial_no":"%s","effective_time":"%s","expire_time":"%s","encrypt_certificate":\
                    {"algorithm":"AEAD_AES_256_GCM","nonce":"%s","associated_data":"certificate","ciphertext":"%s"}}"""
                    .formatted(certificate.serial(), certificate.effective(), certificate.expires(), nonce,
                            aesGcm(apiV3Key.getBytes(StandardCharsets.UTF_8), nonce, "certificate", certificate.pem())));
        }
        return "{\"data\":[" + data + "]}";
    }

    /** The headers WeChat Pay signs an answer with: the signing certificate's (or public key's) serial and key. */
    public static Map<String, String> wxAnswerHeaders(String serial, PrivateKey key, String body, Instant now) {
        String timestamp = Long.toString(now.getEpochSecond());
        String nonce = UUID.randomUUID().toString().replace("-", "");
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("wechatpay-timestamp", timestamp);
        headers.put("wechatpay-nonce", nonce);
        headers.put("wechatpay-serial", serial);
        headers.put("wechatpay-signature", rsaSha256(key,
                (timestamp + "\n" + nonce + "\n" + body + "\n").getBytes(StandardCharsets.UTF_8)));
        return headers;
    }

    // ---- Alipay ----

    public SignedCallback alipayPayment(String outTradeNo, String tradeNo, BigDecimal totalAmount, String tradeStatus) {
        Map<String, String> params = alipayBase(outTradeNo, tradeNo, tradeStatus, StandardCharsets.UTF_8);
        params.put("total_amount", totalAmount.toPlainString());
        params.put("receipt_amount", totalAmount.toPlainString());
        return alipaySigned(params, StandardCharsets.UTF_8);
    }

    public SignedCallback alipayRefund(String outTradeNo, String tradeNo, String outBizNo, BigDecimal refundFee) {
        return alipayRefund(outTradeNo, tradeNo, outBizNo, refundFee, refundFee, "TRADE_SUCCESS", StandardCharsets.UTF_8);
    }

    /**
     * The trade_status_sync notice Alipay posts to the payment's notify_url once a refund succeeded, with every field
     * of its documented shape: refund_fee is the trade's running total refunded, trade_status stays TRADE_SUCCESS
     * after a partial refund and is TRADE_CLOSED after the one that refunds everything.
     */
    public SignedCallback alipayRefund(String outTradeNo, String tradeNo, String outBizNo, BigDecimal totalAmount,
                                       BigDecimal refundFee, String tradeStatus, Charset charset) {
        Map<String, String> params = alipayBase(outTradeNo, tradeNo, tradeStatus, charset);
        params.put("out_biz_no", outBizNo);
        params.put("buyer_id", "2088102177846880");
        params.put("seller_id", "2088101117955611");
        params.put("seller_email", "zhuzhanghu@alitest.com");
        params.put("total_amount", totalAmount.toPlainString());
        params.put("receipt_amount", totalAmount.toPlainString());
        params.put("invoice_amount", totalAmount.toPlainString());
        params.put("buyer_pay_amount", totalAmount.toPlainString());
        params.put("point_amount", "0.00");
        params.put("refund_fee", refundFee.toPlainString());
        params.put("body", "当面付退款测试");
        params.put("gmt_create", "2026-12-02 10:30:00");
        params.put("gmt_payment", "2026-12-02 10:30:05");
        params.put("gmt_refund", "2026-12-02 10:40:00.123");
        if ("TRADE_CLOSED".equals(tradeStatus)) {
            params.put("gmt_close", "2026-12-02 10:40:00");
        }
        params.put("fund_bill_list", "[{&quot;amount&quot;:&quot;" + totalAmount.toPlainString()
                + "&quot;,&quot;fundChannel&quot;:&quot;ALIPAYACCOUNT&quot;}]");
        params.put("passback_params", "merchantBizType%3d3C%26merchantBizNo%3d2016010101111");
        params.put("voucher_detail_list", "");
        return alipaySigned(params, charset);
    }

    public Map<String, String> alipayBase(String outTradeNo, String tradeNo, String tradeStatus, Charset charset) {
        Map<String, String> params = new LinkedHashMap<>();
        params.put("notify_time", "2026-12-02 10:35:00");
        params.put("notify_type", "trade_status_sync");
        params.put("notify_id", UUID.randomUUID().toString().replace("-", ""));
        params.put("app_id", keys.alipayAppId());
        params.put("charset", charset.name().toLowerCase());
        params.put("version", "1.0");
        params.put("sign_type", "RSA2");
        params.put("trade_no", tradeNo);
        params.put("out_trade_no", outTradeNo);
        params.put("trade_status", tradeStatus);
        params.put("subject", "测试商品");
        params.put("buyer_logon_id", "159****5620");
        return params;
    }

    /**
     * A payment notice of a trade a platform's third-party app made for a merchant: {@code app_id} the app's own,
     * {@code auth_app_id} the authorising merchant's, signed by Alipay like every notice.
     */
    public SignedCallback alipayIsvPayment(String authAppId, String outTradeNo, String tradeNo, BigDecimal totalAmount,
                                           String tradeStatus) {
        Map<String, String> params = alipayBase(outTradeNo, tradeNo, tradeStatus, StandardCharsets.UTF_8);
        params.put("app_id", ProviderKeys.ALIPAY_ISV_APP_ID);
        params.put("auth_app_id", authAppId);
        params.put("total_amount", totalAmount.toPlainString());
        params.put("receipt_amount", totalAmount.toPlainString());
        return alipaySigned(params, StandardCharsets.UTF_8);
    }

    /** The refund notice of such a trade: the running total refunded, as for a merchant's own. */
    public SignedCallback alipayIsvRefund(String authAppId, String outTradeNo, String tradeNo, String outBizNo,
                                          BigDecimal totalAmount, BigDecimal refundFee) {
        Map<String, String> params = alipayBase(outTradeNo, tradeNo, "TRADE_SUCCESS", StandardCharsets.UTF_8);
        params.put("app_id", ProviderKeys.ALIPAY_ISV_APP_ID);
        params.put("auth_app_id", authAppId);
        params.put("out_biz_no", outBizNo);
        params.put("total_amount", totalAmount.toPlainString());
        params.put("refund_fee", refundFee.toPlainString());
        params.put("gmt_refund", "2026-12-02 10:40:00.123");
        return alipaySigned(params, StandardCharsets.UTF_8);
    }

    /** Signs the sorted {@code k=v&...} string of the non-empty parameters other than sign and sign_type. */
    public SignedCallback alipaySigned(Map<String, String> params, Charset charset) {
        StringBuilder content = new StringBuilder();
        new TreeMap<>(params).forEach((key, value) -> {
            if (!key.equals("sign") && !key.equals("sign_type") && value != null && !value.isEmpty()) {
                content.append(content.length() == 0 ? "" : "&").append(key).append('=').append(value);
            }
        });
        Map<String, String> signed = new LinkedHashMap<>(params);
        signed.put("sign", rsaSha256(keys.alipayPrivate(), content.toString().getBytes(charset)));
        StringBuilder body = new StringBuilder();
        signed.forEach((key, value) -> body.append(body.length() == 0 ? "" : "&")
                .append(key).append('=').append(URLEncoder.encode(value, charset)));
        return new SignedCallback("alipay", Map.of(), "application/x-www-form-urlencoded; charset=" + charset.name().toLowerCase(),
                body.toString().getBytes(StandardCharsets.US_ASCII));
    }

    // ---- Stripe ----

    public SignedCallback stripePayment(String outTradeNo, String paymentIntentId, long amountMinor, String currency, Instant now) {
        String body = """
                {"id":"evt_%s","object":"event","api_version":"2024-06-20","created":%d,"type":"payment_intent.succeeded",\
                "data":{"object":{"id":"%s","object":"payment_intent","amount":%d,"amount_received":%d,"currency":"%s",\
                "status":"succeeded","metadata":{"out_trade_no":"%s"}}}}"""
                .formatted(UUID.randomUUID().toString().replace("-", ""), now.getEpochSecond(), paymentIntentId,
                        amountMinor, amountMinor, currency, outTradeNo);
        return stripeSigned(body, now);
    }

    /** A {@code refund.updated} event with the refund object as Stripe's API reference documents it. */
    public SignedCallback stripeRefund(String outTradeNo, String paymentIntentId, String refundId, long amountMinor,
                                       String currency, String status, Instant now) {
        String body = """
                {"id":"evt_%s","object":"event","api_version":"2024-06-20","created":%d,"type":"refund.updated",                "data":{"object":{"id":"%s","object":"refund","amount":%d,"balance_transaction":"txn_1Mr9Ke2eZvKYlo2C",                "charge":"ch_%s","created":%d,"currency":"%s","destination_details":{"card":{"reference_status":"pending",                "reference_type":"acquirer_reference_number","type":"refund"},"type":"card"},                "metadata":{"out_trade_no":"%s"},"payment_intent":"%s","reason":"requested_by_customer",                "receipt_number":null,"source_transfer_reversal":null,"status":"%s","transfer_reversal":null},                "previous_attributes":{"status":"pending"}},"livemode":false,"pending_webhooks":1,                "request":{"id":null,"idempotency_key":null}}"""
                .formatted(UUID.randomUUID().toString().replace("-", ""), now.getEpochSecond(), refundId, amountMinor,
                        paymentIntentId, now.getEpochSecond(), currency, outTradeNo, paymentIntentId, status);
        return stripeSigned(body, now);
    }

    /**
     * A {@code charge.refunded} event as API versions from 2022-11-15 send it: the charge no longer embeds its refunds,
     * {@code amount_refunded} is the running total and {@code previous_attributes} the total before.
     */
    public SignedCallback stripeChargeRefunded(String outTradeNo, String paymentIntentId, long amountMinor,
                                               long refundedMinor, long previouslyRefundedMinor, String currency,
                                               Instant now) {
        String body = """
                {"id":"evt_%s","object":"event","api_version":"2024-06-20","created":%d,"type":"charge.refunded",                "data":{"object":{"id":"ch_%s","object":"charge","amount":%d,"amount_captured":%d,"amount_refunded":%d,                "application":null,"application_fee":null,"application_fee_amount":null,                "balance_transaction":"txn_3MmlLrLkdIwHu7ix0uke3Ezy","billing_details":{"address":{"city":null,                "country":null,"line1":null,"line2":null,"postal_code":null,"state":null},"email":null,"name":null,                "phone":null},"calculated_statement_descriptor":"Stripe","captured":true,"created":%d,"currency":"%s",                "customer":null,"description":null,"disputed":false,"failure_code":null,"failure_message":null,                "fraud_details":{},"livemode":false,"metadata":{"out_trade_no":"%s"},"on_behalf_of":null,                "outcome":{"network_status":"approved_by_network","reason":null,"risk_level":"normal","risk_score":32,                "seller_message":"Payment complete.","type":"authorized"},"paid":true,"payment_intent":"%s",                "payment_method":"pm_1MmlLrLkdIwHu7ixIJwEWSNR","receipt_email":null,"receipt_number":null,                "receipt_url":"https://pay.stripe.com/receipts/payment/CAcaFwoV","refunded":%b,"review":null,                "shipping":null,"source_transfer":null,"statement_descriptor":null,"statement_descriptor_suffix":null,                "status":"succeeded","transfer_data":null,"transfer_group":null},                "previous_attributes":{"amount_refunded":%d,"refunded":false}},"livemode":false,"pending_webhooks":1,                "request":{"id":"req_nVT1VNyPd1dhRp","idempotency_key":"%s"}}"""
                .formatted(UUID.randomUUID().toString().replace("-", ""), now.getEpochSecond(), paymentIntentId,
                        amountMinor, amountMinor, refundedMinor, now.getEpochSecond(), currency, outTradeNo,
                        paymentIntentId, refundedMinor == amountMinor, previouslyRefundedMinor, UUID.randomUUID());
        return stripeSigned(body, now);
    }

    /**
     * The same event as a Connect platform's endpoint receives it: naming the connected account it happened on, signed
     * with the platform's Connect endpoint secret.
     */
    public SignedCallback stripeConnect(String account, SignedCallback event, Instant now) {
        return stripeConnect(account, event, now, keys.stripeConnectSecret());
    }

    /** The same, signed with {@code secret}: a platform's endpoint secret of the test's own. */
    public SignedCallback stripeConnect(String account, SignedCallback event, Instant now, String secret) {
        String body = new String(event.body(), StandardCharsets.UTF_8)
                .replaceFirst("\\{\"id\":\"(evt_[^\"]+)\",", "{\"id\":\"$1\",\"account\":\"" + account + "\",");
        long t = now.getEpochSecond();
        String header = "t=" + t + ",v1=" + hmacSha256Hex(secret, t + "." + body);
        return new SignedCallback("stripe", Map.of("Stripe-Signature", header), "application/json",
                body.getBytes(StandardCharsets.UTF_8));
    }

    public SignedCallback stripeSigned(String body, Instant now) {
        long t = now.getEpochSecond();
        String header = "t=" + t + ",v1=" + hmacSha256Hex(keys.stripeSecret(), t + "." + body);
        return new SignedCallback("stripe", Map.of("Stripe-Signature", header), "application/json",
                body.getBytes(StandardCharsets.UTF_8));
    }

    // ---- primitives ----

    public static String rsaSha256(PrivateKey key, byte[] message) {
        try {
            Signature signature = Signature.getInstance("SHA256withRSA");
            signature.initSign(key);
            signature.update(message);
            return Base64.getEncoder().encodeToString(signature.sign());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    public static String hmacSha256Hex(String secret, String message) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            return HexFormat.of().formatHex(mac.doFinal(message.getBytes(StandardCharsets.UTF_8)));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    public static String aesGcm(byte[] key, String nonce, String associatedData, String plaintext) {
        try {
            Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
            cipher.init(Cipher.ENCRYPT_MODE, new SecretKeySpec(key, "AES"),
                    new GCMParameterSpec(128, nonce.getBytes(StandardCharsets.UTF_8)));
            cipher.updateAAD(associatedData.getBytes(StandardCharsets.UTF_8));
            return Base64.getEncoder().encodeToString(cipher.doFinal(plaintext.getBytes(StandardCharsets.UTF_8)));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }
}
