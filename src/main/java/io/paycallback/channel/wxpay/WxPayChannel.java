package io.paycallback.channel.wxpay;

import com.fasterxml.jackson.databind.JsonNode;
import io.paycallback.channel.AnswerFormat;
import io.paycallback.channel.CallbackKind;
import io.paycallback.channel.CallbackRequest;
import io.paycallback.channel.JsonFields;
import io.paycallback.channel.Notice;
import io.paycallback.channel.Rejection;
import io.paycallback.channel.Signatures;
import io.paycallback.channel.SignedChannel;
import io.paycallback.trade.ChannelId;
import io.paycallback.trade.ChannelTradeNo;
import io.paycallback.trade.OutTradeNo;
import io.paycallback.trade.RefundNo;

import javax.crypto.SecretKey;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.security.PublicKey;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

/**
 * WeChat Pay API v3 notices: RSA signature over {@code timestamp\nnonce\nbody\n}, then an AES-256-GCM {@code resource}
 * whose plaintext is the payment or refund. A partner's (服务商) notices are signed and encrypted with the partner's keys
 * and name the partner ({@code sp_mchid}) and the sub-merchant ({@code sub_mchid}), whose merchant the notice is for.
 */
public final class WxPayChannel extends SignedChannel<WxPayMerchant, byte[]> {

    static final Duration TIMESTAMP_TOLERANCE = Duration.ofMinutes(5);
    private static final String SIGNATURE_TYPE = "WECHATPAY2-SHA256-RSA2048";
    /** WeChat Pay probes merchants with deliberately wrong signatures; they must be refused quietly. */
    private static final String PROBE_PREFIX = "WECHATPAY/SIGNTEST/";
    private static final String DEFAULT_CURRENCY = "CNY";
    /** A partner's or a platform's combine holds at most 50 sub-orders (a direct merchant's 10). */
    static final int MAX_SUB_ORDERS = 50;
    private static final String UNKNOWN_SERIAL = "unknown Wechatpay-Serial";
    private static final Set<String> UNPAID_TRADE_STATES = Set.of("NOTPAY", "CLOSED", "REFUND", "USERPAYING", "PAYERROR", "REVOKED");

    private static final AnswerFormat ANSWERS = new AnswerFormat("application/json",
            "{\"code\":\"SUCCESS\",\"message\":\"\u6210\u529f\"}",
            phrase -> "{\"code\":\"FAIL\",\"message\":\"" + phrase + "\"}", 401);

    private final Clock clock;

    public WxPayChannel(Map<String, WxPayMerchant> merchants, Clock clock) {
        super(ChannelId.WXPAY, merchants, ANSWERS);
        this.clock = clock;
    }

    @Override
    protected byte[] verify(CallbackRequest request, WxPayMerchant merchant) throws Rejection {
        checkSignature(request, merchant);
        return request.body();
    }

    @Override
    protected byte[] stored(CallbackRequest request) {
        return request.body();
    }

    @Override
    protected Notice notice(CallbackRequest request, WxPayMerchant merchant, byte[] body) throws Rejection {
        if (merchant == null) {
            throw Rejection.malformed("no wxpay keys for this merchant");
        }
        return notice(request, merchant, JsonFields.parse(decrypt(body, merchant.apiV3Key()), "resource plaintext"));
    }

    /**
     * WeChat Pay signs the answers of its API like its notices, with the same platform keys and timestamp rule: an
     * answer that does not verify is not a fact.
     *
     * @param headers header names in lower case
     */
    public void verifyAnswer(String merchantId, Map<String, String> headers, byte[] body) throws Rejection {
        checkSignature(new CallbackRequest(merchantId, CallbackKind.PAYMENT, headers, body), merchant(merchantId));
    }

    private void checkSignature(CallbackRequest request, WxPayMerchant merchant) throws Rejection {
        checkSignature(request, serial -> merchant.key(serial).orElse(null), clock);
    }

    /**
     * A notice's or an answer's signature, by the key its {@code Wechatpay-Serial} names.
     *
     * @param keys a serial's key; null for a serial it does not know
     */
    static void checkSignature(CallbackRequest request, Function<String, PublicKey> keys, Clock clock) throws Rejection {
        String timestamp = requiredHeader(request, "Wechatpay-Timestamp");
        String nonce = requiredHeader(request, "Wechatpay-Nonce");
        String signature = requiredHeader(request, "Wechatpay-Signature");
        String serial = requiredHeader(request, "Wechatpay-Serial");
        String signatureType = request.header("Wechatpay-Signature-Type");
        if (signatureType != null && !SIGNATURE_TYPE.equals(signatureType)) {
            throw Rejection.badSignature("unsupported Wechatpay-Signature-Type");
        }
        if (signature.startsWith(PROBE_PREFIX)) {
            throw Rejection.badSignature("signature probe");
        }
        checkTimestamp(timestamp, clock);
        PublicKey key = keys.apply(serial);
        if (key == null) {
            throw Rejection.badSignature(UNKNOWN_SERIAL);
        }
        if (!Signatures.sha256WithRsa(key, signedMessage(timestamp, nonce, request.body()), signature)) {
            throw Rejection.badSignature("signature does not match");
        }
    }

    /**
     * A notice refused for a {@code Wechatpay-Serial} its merchant does not know, when the merchant downloads its
     * platform certificates: WeChat Pay signs with a new certificate as soon as it has one, so the set is downloaded
     * again (as often as its holder allows) and the notice read again if the serial is then known.
     */
    @Override
    public CompletionStage<Boolean> learnKeys(CallbackRequest request) {
        String serial = request.header("Wechatpay-Serial");
        WxPayMerchant merchant;
        try {
            merchant = merchant(request.merchantId());
        } catch (Rejection unknown) {
            return CompletableFuture.completedFuture(false);
        }
        if (serial == null || serial.isBlank() || merchant.key(serial.strip()).isPresent()) {
            return CompletableFuture.completedFuture(false);
        }
        return merchant.certificates().learn(serial.strip());
    }

    private static String requiredHeader(CallbackRequest request, String name) throws Rejection {
        String value = request.header(name);
        if (value == null || value.isBlank()) {
            throw Rejection.badSignature("missing " + name);
        }
        return value.strip();
    }

    private static void checkTimestamp(String timestamp, Clock clock) throws Rejection {
        long seconds;
        try {
            seconds = Long.parseLong(timestamp);
        } catch (NumberFormatException e) {
            throw Rejection.badSignature("Wechatpay-Timestamp is not a number");
        }
        long skew = Math.abs(clock.instant().getEpochSecond() - seconds);
        if (skew > TIMESTAMP_TOLERANCE.toSeconds()) {
            throw Rejection.badSignature("Wechatpay-Timestamp outside tolerance");
        }
    }

    /** The raw body bytes go in unchanged: re-encoding could alter what was signed. */
    private static byte[] signedMessage(String timestamp, String nonce, byte[] body) {
        ByteArrayOutputStream message = new ByteArrayOutputStream(body.length + 64);
        message.writeBytes((timestamp + "\n" + nonce + "\n").getBytes(StandardCharsets.UTF_8));
        message.writeBytes(body);
        message.write('\n');
        return message.toByteArray();
    }

    private static byte[] decrypt(byte[] body, SecretKey apiV3Key) throws Rejection {
        return ApiV3Cipher.decrypt(JsonFields.object(JsonFields.parse(body, "body"), "resource"), apiV3Key, "resource");
    }

    private static Notice notice(CallbackRequest request, WxPayMerchant merchant, JsonNode plaintext) throws Rejection {
        if (plaintext.has("combine_out_trade_no")) {
            return combined(request, merchant, plaintext);
        }
        String merchantId = merchant.merchantOf(request.merchantId(), plaintext);
        boolean refund = plaintext.has("refund_status");
        if (!refund && !plaintext.has("trade_state")) {
            throw Rejection.malformed("neither trade_state nor refund_status");
        }
        // What the notice is decides its ledger, not the notify_url it was sent to: a refund request may name the payment's.
        return refund ? refund(merchantId, plaintext) : payment(merchantId, plaintext);
    }

    /**
     * A combine payment's notice (合单支付): {@code combine_mchid} must be the merchant's, or the partner's, that made it;
     * each of its 1 to 50 {@code sub_orders} is an order of its own, with its own state and {@code amount.total_amount}.
     * A sub-order that cannot be read, or belongs to a merchant we do not serve, holds the whole notice: nothing of it
     * is stored, and the provider keeps it alive.
     */
    private static Notice combined(CallbackRequest request, WxPayMerchant merchant, JsonNode plaintext) throws Rejection {
        if (!merchant.mchid().equals(JsonFields.text(plaintext, "combine_mchid"))) {
            throw Rejection.malformed("combine_mchid is not the configured merchant");
        }
        OutTradeNo combineOutTradeNo = new OutTradeNo(JsonFields.text(plaintext, "combine_out_trade_no"));
        JsonNode subOrders = plaintext.get("sub_orders");
        if (subOrders == null || !subOrders.isArray() || subOrders.isEmpty() || subOrders.size() > MAX_SUB_ORDERS) {
            throw Rejection.malformed("sub_orders is not a list of 1 to " + MAX_SUB_ORDERS + " orders");
        }
        List<Notice> notices = new ArrayList<>(subOrders.size());
        for (JsonNode subOrder : subOrders) {
            if (!subOrder.isObject()) {
                throw Rejection.malformed("a sub-order is not an object");
            }
            notices.add(subOrder(merchant.merchantOfSubOrder(request.merchantId(), subOrder), subOrder));
        }
        return new Notice.Combined(combineOutTradeNo, notices);
    }

    /**
     * One order of a combine: of a notice, or of the combine query's answer, which has the same {@code sub_orders}. Its
     * own state decides; its amount is {@code amount.total_amount}.
     */
    public static Notice subOrder(String merchantId, JsonNode subOrder) throws Rejection {
        return transaction(merchantId, subOrder, "total_amount");
    }

    /** A transaction: the plaintext of a payment notice, or the answer of a transaction query. */
    public static Notice payment(String merchantId, JsonNode plaintext) throws Rejection {
        return transaction(merchantId, plaintext, "total");
    }

    /** Paid only in {@code SUCCESS}; its amount in fen under {@code totalField} of {@code amount}. */
    private static Notice transaction(String merchantId, JsonNode transaction, String totalField) throws Rejection {
        String tradeState = JsonFields.text(transaction, "trade_state");
        if (!"SUCCESS".equals(tradeState)) {
            return new Notice.Ignored(UNPAID_TRADE_STATES.contains(tradeState) ? "trade_state " + tradeState : "unknown trade_state");
        }
        JsonNode amount = JsonFields.object(transaction, "amount");
        String currency = currency(amount);
        return new Notice.Payment(merchantId, ChannelId.WXPAY,
                new ChannelTradeNo(JsonFields.text(transaction, "transaction_id")),
                new OutTradeNo(JsonFields.text(transaction, "out_trade_no")),
                tradeState,
                JsonFields.amount(amount, totalField, currency));
    }

    private static Notice refund(String merchantId, JsonNode plaintext) throws Rejection {
        String status = JsonFields.text(plaintext, "refund_status");
        Notice.RefundResult result = switch (status) {
            case "SUCCESS" -> Notice.RefundResult.SUCCEEDED;
            case "CLOSED", "ABNORMAL" -> Notice.RefundResult.FAILED;
            default -> null;
        };
        if (result == null && !"PROCESSING".equals(status)) {
            return new Notice.Ignored("unknown refund_status");
        }
        JsonNode amount = JsonFields.object(plaintext, "amount");
        String currency = currency(amount);
        if (result == null) {
            return new Notice.RefundPending(merchantId, ChannelId.WXPAY, new RefundNo(JsonFields.text(plaintext, "out_refund_no")),
                    JsonFields.text(plaintext, "refund_id"), new ChannelTradeNo(JsonFields.text(plaintext, "transaction_id")),
                    new OutTradeNo(JsonFields.text(plaintext, "out_trade_no")),
                    JsonFields.amount(amount, "refund", currency));
        }
        return new Notice.Refund(merchantId, ChannelId.WXPAY,
                new RefundNo(JsonFields.text(plaintext, "out_refund_no")),
                JsonFields.text(plaintext, "refund_id"),
                new ChannelTradeNo(JsonFields.text(plaintext, "transaction_id")),
                new OutTradeNo(JsonFields.text(plaintext, "out_trade_no")),
                result,
                JsonFields.amount(amount, "refund", currency),
                null);
    }

    private static String currency(JsonNode amount) throws Rejection {
        String currency = JsonFields.optionalText(amount, "currency");
        return JsonFields.currency(currency == null ? DEFAULT_CURRENCY : currency);
    }
}
