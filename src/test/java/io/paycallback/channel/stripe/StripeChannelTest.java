package io.paycallback.channel.stripe;

import io.paycallback.channel.FormattedAnswer;
import io.paycallback.channel.CallbackKind;
import io.paycallback.channel.CallbackRequest;
import io.paycallback.channel.Notice;
import io.paycallback.channel.AnswerKind;
import io.paycallback.channel.ChannelVerdict;
import io.paycallback.trade.ChannelId;
import io.paycallback.trade.ChannelTradeNo;
import io.paycallback.trade.Money;
import io.paycallback.trade.OutTradeNo;
import io.paycallback.trade.RefundNo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.math.BigDecimal;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;

import static io.paycallback.channel.stripe.StripeFixture.NEXT_SECRET;
import static io.paycallback.channel.stripe.StripeFixture.SECRET;
import static io.paycallback.channel.stripe.StripeFixture.event;
import static io.paycallback.channel.stripe.StripeFixture.hmac;
import static io.paycallback.channel.stripe.StripeFixture.paymentIntentSucceeded;
import static io.paycallback.channel.stripe.StripeFixture.refundObject;
import static io.paycallback.channel.stripe.StripeFixture.request;
import static io.paycallback.channel.stripe.StripeFixture.signed;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class StripeChannelTest {

    private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");
    private static final long T = NOW.getEpochSecond();

    private final StripeChannel channel = new StripeChannel(
            Map.of("default", new StripeMerchant(List.of(SECRET, NEXT_SECRET))), Clock.fixed(NOW, ZoneOffset.UTC));

    private static <N extends Notice> N accepted(ChannelVerdict verdict, Class<N> type) {
        return assertInstanceOf(type, assertInstanceOf(ChannelVerdict.Accepted.class, verdict).notice());
    }

    private ChannelVerdict payment(String body) {
        return channel.read(signed(CallbackKind.PAYMENT, SECRET, T, body));
    }

    private ChannelVerdict refund(String body) {
        return channel.read(signed(CallbackKind.REFUND, SECRET, T, body));
    }

    @Test
    void acceptsSignedPaymentIntent() {
        Notice.Payment payment = accepted(payment(paymentIntentSucceeded(1999, "usd")), Notice.Payment.class);
        assertEquals(new Notice.Payment("default", ChannelId.STRIPE, new ChannelTradeNo("pi_3Abc"), new OutTradeNo("ORDER-1"), "succeeded",
                new Money(new BigDecimal("19.99"), "USD")), payment);
    }

    @ParameterizedTest
    @CsvSource({"500,jpy,500,JPY", "1999,usd,19.99,USD", "1,cny,0.01,CNY", "8800,CNY,88.00,CNY", "0,eur,0.00,EUR"})
    void amountsAreScaledByTheCurrencysFractionDigits(long minor, String currency, String expected, String code) {
        Notice.Payment payment = accepted(payment(paymentIntentSucceeded(minor, currency)), Notice.Payment.class);
        assertEquals(new BigDecimal(expected), payment.amount().amount());
        assertEquals(code, payment.amount().currency());
    }

    @ParameterizedTest
    @ValueSource(strings = {"kwd", "bhd", "zzz", "", "xau"})
    void currenciesTheLedgerCannotHoldAreMalformed(String currency) {
        assertInstanceOf(ChannelVerdict.Malformed.class, payment(paymentIntentSucceeded(1000, currency)));
    }

    @Test
    void paymentWithoutOrderNumberIsMalformed() {
        String body = paymentIntentSucceeded(1999, "usd").replace("\"out_trade_no\":\"ORDER-1\"", "\"note\":\"x\"");
        assertEquals(new ChannelVerdict.Malformed("missing metadata.out_trade_no"), payment(body));
    }

    @Test
    void fractionalOrNegativeMinorUnitsAreMalformed() {
        assertInstanceOf(ChannelVerdict.Malformed.class, payment(paymentIntentSucceeded(1999, "usd").replace("\"amount_received\":1999", "\"amount_received\":19.99")));
        assertInstanceOf(ChannelVerdict.Malformed.class, payment(paymentIntentSucceeded(1999, "usd").replace("\"amount_received\":1999", "\"amount_received\":-1999")));
    }

    @Test
    void rejectsTamperedBody() {
        CallbackRequest signed = signed(CallbackKind.PAYMENT, SECRET, T, paymentIntentSucceeded(1, "usd"));
        CallbackRequest tampered = request(CallbackKind.PAYMENT, signed.header("Stripe-Signature"), paymentIntentSucceeded(100000, "usd"));
        assertEquals(new ChannelVerdict.BadSignature("no v1 signature matches"), channel.read(tampered));
    }

    @Test
    void rejectsUnknownSecret() {
        assertInstanceOf(ChannelVerdict.BadSignature.class,
                channel.read(signed(CallbackKind.PAYMENT, "whsec_someone_else", T, paymentIntentSucceeded(1999, "usd"))));
    }

    @Test
    void everyConfiguredSecretIsAcceptedDuringRotation() {
        accepted(channel.read(signed(CallbackKind.PAYMENT, NEXT_SECRET, T, paymentIntentSucceeded(1999, "usd"))), Notice.Payment.class);
    }

    @Test
    void anyMatchingV1AmongSeveralIsEnough() {
        String body = paymentIntentSucceeded(1999, "usd");
        String header = "t=" + T + ",v1=" + hmac("whsec_old", T, body) + ",v0=" + hmac(SECRET, T, body) + ",v1=" + hmac(NEXT_SECRET, T, body);
        accepted(channel.read(request(CallbackKind.PAYMENT, header, body)), Notice.Payment.class);
    }

    @Test
    void v0SchemeIsNotAccepted() {
        String body = paymentIntentSucceeded(1999, "usd");
        String header = "t=" + T + ",v0=" + hmac(SECRET, T, body);
        assertEquals(new ChannelVerdict.BadSignature("Stripe-Signature without v1 signature"), channel.read(request(CallbackKind.PAYMENT, header, body)));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "garbage", "t=abc,v1=00", "v1=0123", "t=1767225600", "t=1767225600,v1=nothex", ",,,="})
    void missingOrUnparseableHeaderIsBadSignature(String header) {
        assertInstanceOf(ChannelVerdict.BadSignature.class, channel.read(request(CallbackKind.PAYMENT, header, paymentIntentSucceeded(1999, "usd"))));
    }

    @Test
    void absentHeaderIsBadSignature() {
        assertEquals(new ChannelVerdict.BadSignature("missing Stripe-Signature"),
                channel.read(request(CallbackKind.PAYMENT, null, paymentIntentSucceeded(1999, "usd"))));
    }

    @ParameterizedTest
    @ValueSource(longs = {-301, 301, -3600, 3600})
    void rejectsStaleAndFutureTimestamps(long skewSeconds) {
        ChannelVerdict verdict = channel.read(signed(CallbackKind.PAYMENT, SECRET, T + skewSeconds, paymentIntentSucceeded(1999, "usd")));
        assertEquals(new ChannelVerdict.BadSignature("Stripe-Signature timestamp outside tolerance"), verdict);
    }

    @ParameterizedTest
    @ValueSource(longs = {-300, -299, 299, 300})
    void acceptsTimestampsJustInsideTolerance(long skewSeconds) {
        accepted(channel.read(signed(CallbackKind.PAYMENT, SECRET, T + skewSeconds, paymentIntentSucceeded(1999, "usd"))), Notice.Payment.class);
    }

    @ParameterizedTest
    @ValueSource(strings = {"payment_intent.created", "payment_intent.payment_failed", "charge.succeeded", "customer.created"})
    void otherEventTypesAreIgnored(String type) {
        accepted(payment(paymentIntentSucceeded(1999, "usd").replace("payment_intent.succeeded", type)), Notice.Ignored.class);
    }

    @Test
    void signedButUnparseableEventIsMalformed() {
        for (String body : new String[] {"not json", "{}", "{\"type\":\"payment_intent.succeeded\"}",
                "{\"type\":\"payment_intent.succeeded\",\"data\":{\"object\":{}}}"}) {
            assertInstanceOf(ChannelVerdict.Malformed.class, payment(body), body);
        }
    }

    @Test
    void parsesRefundUpdatedWithOurRefundNumber() {
        String body = event("refund.updated", refundObject("succeeded", 500, "{\"out_refund_no\":\"REFUND-1\",\"out_trade_no\":\"ORDER-1\"}"));
        Notice.Refund refund = accepted(refund(body), Notice.Refund.class);
        assertEquals(new Notice.Refund("default", ChannelId.STRIPE, new RefundNo("REFUND-1"), "re_1", new ChannelTradeNo("pi_3Abc"), new OutTradeNo("ORDER-1"),
                Notice.RefundResult.SUCCEEDED, new Money(new BigDecimal("5.00"), "USD"), null), refund);
    }

    @Test
    void refundWithoutOurNumberIsKeyedByStripesId() {
        Notice.Refund refund = accepted(refund(event("refund.created", refundObject("succeeded", 1999, "{}"))), Notice.Refund.class);
        assertEquals("re_1", refund.refundNo().value());
        assertEquals("re_1", refund.channelRefundId());
        assertNull(refund.outTradeNo());
    }

    @ParameterizedTest
    @CsvSource({"refund.failed,failed", "refund.updated,canceled", "charge.refund.updated,failed"})
    void failedAndCanceledRefundsFailed(String type, String status) {
        Notice.Refund refund = accepted(refund(event(type, refundObject(status, 1999, "{}"))), Notice.Refund.class);
        assertEquals(Notice.RefundResult.FAILED, refund.result());
    }

    @ParameterizedTest
    @ValueSource(strings = {"pending", "requires_action"})
    void unfinishedRefundsArePendingNeverAResult(String status) {
        Notice.RefundPending pending = accepted(refund(event("refund.created", refundObject(status, 1999, "{}"))),
                Notice.RefundPending.class);
        assertEquals(new BigDecimal("19.99"), pending.amount().amount());
    }

    @Test
    void chargeRefundedUsesTheLatestRefundAndTheChargesTotal() {
        String charge = """
                {"id":"ch_1","object":"charge","amount":3000,"amount_refunded":3000,"currency":"usd","payment_intent":"pi_3Abc",\
                "metadata":{"out_trade_no":"ORDER-1"},"refunds":{"object":"list","data":[%s,%s]}}"""
                .formatted(refundObject("succeeded", 1000, "{}"),
                        refundObject("succeeded", 2000, "{\"out_refund_no\":\"REFUND-2\"}").replace("re_1", "re_2").replace("1767225700", "1767225800"));
        Notice.Refund refund = accepted(refund(event("charge.refunded", charge)), Notice.Refund.class);
        assertEquals(new Notice.Refund("default", ChannelId.STRIPE, new RefundNo("REFUND-2"), "re_2", new ChannelTradeNo("pi_3Abc"), new OutTradeNo("ORDER-1"),
                Notice.RefundResult.SUCCEEDED, new Money(new BigDecimal("20.00"), "USD"), new Money(new BigDecimal("30.00"), "USD")), refund);
    }

    @Test
    void chargeRefundedWithoutRefundListIsTheChargesRunningTotalKeyedByIt() {
        String charge = """
                {"id":"ch_1","object":"charge","amount":500,"amount_refunded":500,"currency":"jpy","payment_intent":"pi_3Abc",\
                "metadata":{"out_trade_no":"ORDER-1"},"refunded":true}""";
        Notice.Refund refund = accepted(refund(event("charge.refunded", charge)), Notice.Refund.class);
        assertEquals(new Notice.Refund("default", ChannelId.STRIPE, new RefundNo("ch_1:refunded:500"), null, new ChannelTradeNo("pi_3Abc"), new OutTradeNo("ORDER-1"),
                Notice.RefundResult.SUCCEEDED, null, new Money(new BigDecimal("500"), "JPY")), refund);
    }

    @Test
    void aListedRefundInAnotherCurrencyThanItsChargeIsMalformed() {
        String charge = """
                {"id":"ch_1","object":"charge","amount":3000,"amount_refunded":1000,"currency":"eur","payment_intent":"pi_3Abc",                "metadata":{"out_trade_no":"ORDER-1"},"refunds":{"object":"list","data":[%s]}}"""
                .formatted(refundObject("succeeded", 1000, "{}"));
        assertInstanceOf(ChannelVerdict.Malformed.class, refund(event("charge.refunded", charge)));
    }

    @Test
    void theEventTypeDecidesTheLedgerWhicheverEndpointItArrivesOn() {
        accepted(payment(event("refund.updated", refundObject("succeeded", 500, "{}"))), Notice.Refund.class);
        accepted(refund(paymentIntentSucceeded(1999, "usd")), Notice.Payment.class);
    }

    @Test
    void servesOnlyConfiguredMerchants() {
        assertTrue(channel.serves("default"));
        assertFalse(channel.serves("other"));
        CallbackRequest request = signed(CallbackKind.PAYMENT, SECRET, T, paymentIntentSucceeded(1999, "usd"));
        assertInstanceOf(ChannelVerdict.BadSignature.class,
                channel.read(new CallbackRequest("other", CallbackKind.PAYMENT, request.headers(), request.body())));
    }

    @Test
    void answersInStripeFormat() {
        assertEquals(new FormattedAnswer(200, "application/json", "{\"received\":true}"), channel.answer(AnswerKind.ACCEPTED));
        assertEquals(400, channel.answer(AnswerKind.BAD_SIGNATURE).status());
        assertEquals(400, channel.answer(AnswerKind.MALFORMED).status());
        assertEquals(503, channel.answer(AnswerKind.BUSY).status());
        assertEquals(500, channel.answer(AnswerKind.STORE_FAILED).status());
        assertEquals(413, channel.answer(AnswerKind.TOO_LARGE).status());
        assertEquals(404, channel.answer(AnswerKind.UNKNOWN_MERCHANT).status());
        for (AnswerKind outcome : AnswerKind.values()) {
            assertEquals("application/json", channel.answer(outcome).contentType());
        }
    }
}
