package io.paycallback.channel.stripe;

import com.fasterxml.jackson.databind.JsonNode;
import io.paycallback.channel.AnswerFormat;
import io.paycallback.channel.CallbackRequest;
import io.paycallback.channel.JsonFields;
import io.paycallback.channel.Notice;
import io.paycallback.channel.Rejection;
import io.paycallback.channel.SignedChannel;
import io.paycallback.trade.ChannelId;
import io.paycallback.trade.ChannelTradeNo;
import io.paycallback.trade.Money;
import io.paycallback.trade.OutTradeNo;
import io.paycallback.trade.RefundNo;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Set;

/**
 * Stripe webhook events: HMAC-SHA256 of {@code t.body} with an endpoint secret, then the event JSON, whose amounts are
 * minor units of the event's currency. A Connect endpoint's events name the connected account they happened on
 * ({@code account}); the payment or refund is that account's merchant's.
 */
public final class StripeChannel extends SignedChannel<StripeMerchant, byte[]> {

    static final Duration TIMESTAMP_TOLERANCE = Duration.ofSeconds(300);
    private static final String PAYMENT_SUCCEEDED = "payment_intent.succeeded";
    private static final String CHARGE_REFUNDED = "charge.refunded";
    /** {@code charge.refund.updated} is the older name Stripe still sends for refund changes. */
    private static final Set<String> REFUND_EVENTS = Set.of("refund.created", "refund.updated", "refund.failed", "charge.refund.updated");

    /** Stripe answers a failed signature check 400, as its own libraries' examples do. */
    private static final AnswerFormat ANSWERS = new AnswerFormat("application/json", "{\"received\":true}",
            phrase -> "{\"error\":\"" + phrase + "\"}", 400);

    private final Clock clock;

    public StripeChannel(Map<String, StripeMerchant> merchants, Clock clock) {
        super(ChannelId.STRIPE, merchants, ANSWERS);
        this.clock = clock;
    }

    @Override
    protected byte[] verify(CallbackRequest request, StripeMerchant merchant) throws Rejection {
        SignatureHeader header = SignatureHeader.parse(request.header("Stripe-Signature"));
        if (Math.abs(clock.instant().getEpochSecond() - header.timestamp()) > TIMESTAMP_TOLERANCE.toSeconds()) {
            throw Rejection.badSignature("Stripe-Signature timestamp outside tolerance");
        }
        for (String secret : merchant.webhookSecrets()) {
            byte[] expected = hmacSha256(secret, header.timestamp(), request.body());
            for (byte[] candidate : header.v1Signatures()) {
                if (MessageDigest.isEqual(expected, candidate)) {
                    return request.body();
                }
            }
        }
        throw Rejection.badSignature("no v1 signature matches");
    }

    @Override
    protected byte[] stored(CallbackRequest request) {
        return request.body();
    }

    /** The whole {@code whsec_...} string is the key, as Stripe's own libraries use it. */
    private static byte[] hmacSha256(String secret, long timestamp, byte[] body) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            mac.update((timestamp + ".").getBytes(StandardCharsets.UTF_8));
            return mac.doFinal(body);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 unavailable", e);
        }
    }

    @Override
    protected Notice notice(CallbackRequest request, StripeMerchant merchant, byte[] body) throws Rejection {
        JsonNode event = JsonFields.parse(body, "event");
        String type = JsonFields.text(event, "type");
        JsonNode object = JsonFields.object(JsonFields.object(event, "data"), "object");
        boolean payment = PAYMENT_SUCCEEDED.equals(type);
        boolean refund = CHARGE_REFUNDED.equals(type) || REFUND_EVENTS.contains(type);
        if (!payment && !refund) {
            return new Notice.Ignored("event type not used");
        }
        String merchantId = merchant == null ? request.merchantId()
                : merchant.merchantOf(request.merchantId(), JsonFields.optionalText(event, "account"));
        // One webhook endpoint usually receives every subscribed event: the event's type decides its ledger.
        if (payment) {
            return payment(merchantId, object);
        }
        return CHARGE_REFUNDED.equals(type)
                ? chargeRefunded(merchantId, object)
                : refund(merchantId, object, null);
    }

    /** A PaymentIntent, from an event or from the API. */
    public static Notice payment(String merchantId, JsonNode paymentIntent) throws Rejection {
        OutTradeNo outTradeNo = OutTradeNo.ofNullable(metadata(paymentIntent, "out_trade_no"));
        if (outTradeNo == null) {
            throw Rejection.malformed("missing metadata.out_trade_no");
        }
        String currency = JsonFields.currency(JsonFields.text(paymentIntent, "currency"));
        String amountField = paymentIntent.hasNonNull("amount_received") ? "amount_received" : "amount";
        String status = JsonFields.optionalText(paymentIntent, "status");
        return new Notice.Payment(merchantId, ChannelId.STRIPE,
                new ChannelTradeNo(JsonFields.text(paymentIntent, "id")),
                outTradeNo,
                status == null ? "succeeded" : status,
                JsonFields.amount(paymentIntent, amountField, currency));
    }

    /**
     * A charge's {@code amount_refunded} is its running total refunded, never one refund's amount. Only API versions
     * before 2022-11-15 embed the refunds list; with it the latest refund is the notice's identity, without it the
     * notice names no refund and is keyed by the charge and its total, so each distinct total is read once and a
     * later {@code refund.*} event for the same refund adds nothing beyond it.
     */
    private static Notice chargeRefunded(String merchantId, JsonNode charge) throws Rejection {
        OutTradeNo outTradeNo = OutTradeNo.ofNullable(metadata(charge, "out_trade_no"));
        String currency = JsonFields.currency(JsonFields.text(charge, "currency"));
        long refundedMinor = JsonFields.minorUnits(charge, "amount_refunded");
        Money refundedTotal = JsonFields.amount(refundedMinor, currency);
        JsonNode latest = latestRefund(charge);
        if (latest != null && refund(merchantId, latest, outTradeNo) instanceof Notice.Refund listed) {
            if (!listed.currency().equals(currency)) {
                throw Rejection.malformed("refund currency differs from its charge's");
            }
            return new Notice.Refund(merchantId, ChannelId.STRIPE, listed.refundNo(), listed.channelRefundId(),
                    listed.channelTradeNo(), listed.outTradeNo(), listed.result(), listed.amount(),
                    listed.result() == Notice.RefundResult.SUCCEEDED ? refundedTotal : null);
        }
        String chargeId = JsonFields.text(charge, "id");
        return new Notice.Refund(merchantId, ChannelId.STRIPE,
                new RefundNo(chargeId + ":refunded:" + refundedMinor),
                null,
                new ChannelTradeNo(JsonFields.text(charge, "payment_intent")),
                outTradeNo,
                Notice.RefundResult.SUCCEEDED,
                null,
                refundedTotal);
    }

    private static JsonNode latestRefund(JsonNode charge) {
        JsonNode data = charge.path("refunds").path("data");
        JsonNode latest = null;
        for (JsonNode refund : data) {
            if (latest == null || refund.path("created").asLong() > latest.path("created").asLong()) {
                latest = refund;
            }
        }
        return latest;
    }

    /** A Refund object, from an event or from the API; a refund still pending is no result yet, only a pending one. */
    public static Notice refund(String merchantId, JsonNode refund, OutTradeNo chargeOutTradeNo) throws Rejection {
        String status = JsonFields.text(refund, "status");
        Notice.RefundResult result = switch (status) {
            case "succeeded" -> Notice.RefundResult.SUCCEEDED;
            case "failed", "canceled" -> Notice.RefundResult.FAILED;
            default -> null;
        };
        boolean pending = "pending".equals(status) || "requires_action".equals(status);
        if (result == null && !pending) {
            return new Notice.Ignored("unknown refund status");
        }
        String refundId = JsonFields.text(refund, "id");
        String outRefundNo = metadata(refund, "out_refund_no");
        RefundNo refundNo = new RefundNo(outRefundNo == null ? refundId : outRefundNo);
        OutTradeNo outTradeNo = OutTradeNo.ofNullable(metadata(refund, "out_trade_no"));
        String currency = JsonFields.currency(JsonFields.text(refund, "currency"));
        if (pending) {
            return new Notice.RefundPending(merchantId, ChannelId.STRIPE, refundNo, refundId,
                    new ChannelTradeNo(JsonFields.text(refund, "payment_intent")), outTradeNo == null ? chargeOutTradeNo : outTradeNo,
                    JsonFields.amount(refund, "amount", currency));
        }
        return new Notice.Refund(merchantId, ChannelId.STRIPE,
                refundNo,
                refundId,
                new ChannelTradeNo(JsonFields.text(refund, "payment_intent")),
                outTradeNo == null ? chargeOutTradeNo : outTradeNo,
                result,
                JsonFields.amount(refund, "amount", currency),
                null);
    }

    private static String metadata(JsonNode object, String key) throws Rejection {
        JsonNode metadata = object.get("metadata");
        return metadata == null || !metadata.isObject() ? null : JsonFields.optionalText(metadata, key);
    }
}
