package io.paycallback.channel.alipay;

import io.paycallback.channel.AnswerFormat;
import io.paycallback.channel.CallbackRequest;
import io.paycallback.channel.Notice;
import io.paycallback.channel.Rejection;
import io.paycallback.channel.Signatures;
import io.paycallback.channel.SignedChannel;
import io.paycallback.trade.ChannelId;
import io.paycallback.trade.ChannelTradeNo;
import io.paycallback.trade.Money;
import io.paycallback.trade.OutTradeNo;
import io.paycallback.trade.RefundNo;

import java.math.BigDecimal;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Alipay asynchronous notices: a form whose sorted, decoded parameters (without {@code sign} and {@code sign_type})
 * are signed with RSA2. Alipay notices carry no timestamp to check. A platform's third-party application (ISV) gets
 * the notices of the trades it made for merchants: {@code app_id} is its own, {@code auth_app_id} the merchant's.
 */
public final class AlipayChannel extends SignedChannel<AlipayMerchant, Map<String, String>> {

    private static final String SIGN_TYPE = "RSA2";
    private static final String CURRENCY = "CNY";
    private static final Set<String> PAID = Set.of("TRADE_SUCCESS", "TRADE_FINISHED");
    private static final Set<String> UNPAID = Set.of("WAIT_BUYER_PAY", "TRADE_CLOSED");
    /** Yuan with at most two decimals: the exact form Alipay sends, nothing a BigDecimal would round or scale. */
    private static final Pattern YUAN = Pattern.compile("\\d{1,16}(\\.\\d{1,2})?");

    private static final AnswerFormat ANSWERS = new AnswerFormat("text/plain", "success", phrase -> "fail", 401);

    public AlipayChannel(Map<String, AlipayMerchant> merchants) {
        super(ChannelId.ALIPAY, merchants, ANSWERS);
    }

    @Override
    protected Map<String, String> verify(CallbackRequest request, AlipayMerchant merchant) throws Rejection {
        FormBody form = FormBody.parse(request.body());
        Map<String, String> params = form.params();
        String sign = params.get("sign");
        if (sign == null || sign.isBlank()) {
            throw Rejection.badSignature("missing sign");
        }
        if (!SIGN_TYPE.equals(params.get("sign_type"))) {
            throw Rejection.badSignature("sign_type is not RSA2");
        }
        if (!merchant.appId().equals(params.get("app_id"))) {
            throw Rejection.badSignature("app_id is not this merchant's");
        }
        byte[] signed = signedContent(params).getBytes(form.charset());
        if (merchant.alipayKeys().all().stream().noneMatch(key -> Signatures.sha256WithRsa(key, signed, sign))) {
            throw Rejection.badSignature("signature does not match");
        }
        return params;
    }

    @Override
    protected Map<String, String> stored(CallbackRequest request) throws Rejection {
        return FormBody.parse(request.body()).params();
    }

    /** Alipay's rule: every parameter but sign and sign_type, empty values dropped, sorted by name, k=v joined by &. */
    static String signedContent(Map<String, String> params) {
        return new TreeMap<>(params).entrySet().stream()
                .filter(e -> !e.getKey().equals("sign") && !e.getKey().equals("sign_type"))
                .filter(e -> !e.getKey().isEmpty() && !e.getValue().isEmpty())
                .map(e -> e.getKey() + "=" + e.getValue())
                .collect(Collectors.joining("&"));
    }

    /**
     * Alipay posts refund results to the payment's notify_url ({@code alipay.trade.refund} takes none of its own), so
     * what a notice is decides where it goes, not the endpoint it arrived on.
     */
    @Override
    protected Notice notice(CallbackRequest request, AlipayMerchant merchant, Map<String, String> params) throws Rejection {
        String merchantId = merchant == null ? request.merchantId() : merchant.merchantOf(request.merchantId(), params);
        boolean refund = present(params, "out_biz_no") && present(params, "refund_fee");
        return refund ? refund(merchantId, params) : payment(merchantId, params);
    }

    /** A trade notice, or the {@code alipay.trade.query} answer, which has the same fields. */
    public static Notice payment(String merchantId, Map<String, String> params) throws Rejection {
        String tradeStatus = required(params, "trade_status");
        if (!PAID.contains(tradeStatus)) {
            return new Notice.Ignored(UNPAID.contains(tradeStatus) ? "trade_status " + tradeStatus : "unknown trade_status");
        }
        return new Notice.Payment(merchantId, ChannelId.ALIPAY,
                new ChannelTradeNo(required(params, "trade_no")),
                new OutTradeNo(required(params, "out_trade_no")),
                tradeStatus,
                new Money(yuan(required(params, "total_amount"), "total_amount"), CURRENCY));
    }

    /**
     * Alipay reports a refund, once it succeeded, as a trade notice carrying out_biz_no (the refund's out_request_no)
     * and refund_fee, which is the trade's total refunded so far, not this refund's amount: trade_status stays
     * TRADE_SUCCESS after a partial refund and becomes TRADE_CLOSED after the one that refunds everything.
     */
    private static Notice refund(String merchantId, Map<String, String> params) throws Rejection {
        return new Notice.Refund(merchantId, ChannelId.ALIPAY,
                new RefundNo(required(params, "out_biz_no")),
                null,
                new ChannelTradeNo(required(params, "trade_no")),
                new OutTradeNo(required(params, "out_trade_no")),
                Notice.RefundResult.SUCCEEDED,
                null,
                new Money(yuan(required(params, "refund_fee"), "refund_fee"), CURRENCY));
    }

    private static boolean present(Map<String, String> params, String name) {
        String value = params.get(name);
        return value != null && !value.isBlank();
    }

    private static String required(Map<String, String> params, String name) throws Rejection {
        if (!present(params, name)) {
            throw Rejection.malformed("missing " + name);
        }
        return params.get(name);
    }

    public static BigDecimal yuan(String value, String name) throws Rejection {
        if (!YUAN.matcher(value).matches()) {
            throw Rejection.malformed(name + " is not a non-negative amount with at most two decimals");
        }
        return new BigDecimal(value).setScale(2);
    }
}
