package io.paycallback.channel.stripe;

import com.stripe.exception.SignatureVerificationException;
import com.stripe.net.Webhook;
import io.paycallback.channel.CallbackKind;
import io.paycallback.channel.CallbackRequest;
import io.paycallback.channel.Endpoint;
import io.paycallback.channel.Notice;
import io.paycallback.channel.ChannelVerdict;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;

import static io.paycallback.channel.stripe.StripeFixture.SECRET;
import static io.paycallback.channel.stripe.StripeFixture.paymentIntentSucceeded;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Our Stripe-Signature rule against the official stripe-java, in both directions. */
class StripeSdkCrossCheckTest {

    private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");
    private static final Clock CLOCK = Clock.fixed(NOW, ZoneOffset.UTC);
    private static final long TOLERANCE = 300;

    private final StripeChannel channel = new StripeChannel(Map.of("default", new StripeMerchant(List.of(SECRET))), CLOCK);

    @Test
    void headerGeneratedByTheSdkIsAccepted() throws Exception {
        String body = paymentIntentSucceeded(1999, "usd");
        String header = Webhook.Signature.generateSignatureHeader(body, SECRET, NOW.getEpochSecond());

        ChannelVerdict verdict = channel.read(StripeFixture.request(CallbackKind.PAYMENT, header, body));

        assertInstanceOf(Notice.Payment.class, assertInstanceOf(ChannelVerdict.Accepted.class, verdict).notice());
    }

    @Test
    void headerWeAcceptTheSdkAcceptsAndTheHmacsAgree() throws Exception {
        String body = paymentIntentSucceeded(500, "jpy");
        CallbackRequest request = StripeFixture.signed(CallbackKind.PAYMENT, SECRET, NOW.getEpochSecond(), body);

        assertInstanceOf(ChannelVerdict.Accepted.class, channel.read(request));
        assertTrue(Webhook.Signature.verifyHeader(body, request.header("Stripe-Signature"), SECRET, TOLERANCE, CLOCK));
        assertEquals(Webhook.Util.computeHmacSha256(SECRET, NOW.getEpochSecond() + "." + body),
                StripeFixture.hmac(SECRET, NOW.getEpochSecond(), body));
    }

    @Test
    void tamperedOrStaleIsRefusedByBoth() throws Exception {
        String body = paymentIntentSucceeded(1999, "usd");
        String header = Webhook.Signature.generateSignatureHeader(body, SECRET, NOW.getEpochSecond());
        String tampered = paymentIntentSucceeded(1, "usd");
        assertThrows(SignatureVerificationException.class, () -> Webhook.Signature.verifyHeader(tampered, header, SECRET, TOLERANCE, CLOCK));
        assertInstanceOf(ChannelVerdict.BadSignature.class, channel.read(StripeFixture.request(CallbackKind.PAYMENT, header, tampered)));

        String stale = Webhook.Signature.generateSignatureHeader(body, SECRET, NOW.getEpochSecond() - TOLERANCE - 1);
        assertThrows(SignatureVerificationException.class, () -> Webhook.Signature.verifyHeader(body, stale, SECRET, TOLERANCE, CLOCK));
        assertInstanceOf(ChannelVerdict.BadSignature.class, channel.read(StripeFixture.request(CallbackKind.PAYMENT, stale, body)));
    }

    /** The account a Connect event names, as the SDK reads it ({@code Event.getAccount()}), is the one we resolve. */
    @Test
    void theSdkReadsAConnectEventsAccountAsWeDo() throws Exception {
        String connectSecret = "whsec_connect_4c1d8e2f9a7b6c5d4e3f2a1b";
        StripeChannel platform = new StripeChannel(Map.of("market",
                new StripeMerchant(List.of(connectSecret), new Endpoint.Platform(Map.of("acct_1ShopA", "shop-a")))), CLOCK);
        String body = StripeConnectChannelTest.onAccount("acct_1ShopA", paymentIntentSucceeded(1999, "usd"));
        String header = Webhook.Signature.generateSignatureHeader(body, connectSecret, NOW.getEpochSecond());

        com.stripe.model.Event event = Webhook.constructEvent(body, header, connectSecret, TOLERANCE, CLOCK);
        ChannelVerdict verdict = platform.read(new CallbackRequest("market", CallbackKind.PAYMENT,
                Map.of("stripe-signature", header), body.getBytes(java.nio.charset.StandardCharsets.UTF_8)));

        assertEquals("acct_1ShopA", event.getAccount());
        assertEquals("shop-a", ((Notice.Payment) assertInstanceOf(ChannelVerdict.Accepted.class, verdict).notice()).merchantId());
    }
}
