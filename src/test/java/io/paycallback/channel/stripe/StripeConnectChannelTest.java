package io.paycallback.channel.stripe;

import io.paycallback.channel.CallbackKind;
import io.paycallback.channel.CallbackRequest;
import io.paycallback.channel.Endpoint;
import io.paycallback.channel.Notice;
import io.paycallback.channel.ChannelVerdict;
import io.paycallback.trade.ChannelId;
import io.paycallback.trade.ChannelTradeNo;
import io.paycallback.trade.Money;
import io.paycallback.trade.OutTradeNo;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;

import static io.paycallback.channel.stripe.StripeFixture.SECRET;
import static io.paycallback.channel.stripe.StripeFixture.event;
import static io.paycallback.channel.stripe.StripeFixture.hmac;
import static io.paycallback.channel.stripe.StripeFixture.paymentIntentSucceeded;
import static io.paycallback.channel.stripe.StripeFixture.refundObject;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

/**
 * A Connect platform's endpoint: signed with the platform's Connect endpoint secret, each event naming the connected
 * account it happened on (stripe-java's {@code Event.getAccount()}), which decides the merchant.
 */
class StripeConnectChannelTest {

    private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");
    private static final long T = NOW.getEpochSecond();
    private static final String CONNECT_SECRET = "whsec_connect_4c1d8e2f9a7b6c5d4e3f2a1b";

    private final StripeChannel channel = new StripeChannel(Map.of(
            "default", new StripeMerchant(List.of(SECRET)),
            "market", new StripeMerchant(List.of(CONNECT_SECRET), new Endpoint.Platform(Map.of("acct_1ShopA", "shop-a", "acct_1ShopB", "shop-b"))),
            "shop-a", new StripeMerchant(List.of(CONNECT_SECRET), new Endpoint.Platform(Map.of("acct_1ShopA", "shop-a"))),
            "bare", new StripeMerchant(List.of(CONNECT_SECRET), new Endpoint.Platform(Map.of()))),
            Clock.fixed(NOW, ZoneOffset.UTC));

    /** An event as a Connect endpoint receives it: the account right after the id, as Stripe writes it. */
    static String onAccount(String account, String event) {
        return event.replaceFirst("\\{\"id\":\"(evt_[^\"]+)\",", "{\"id\":\"$1\",\"account\":\"" + account + "\",");
    }

    private ChannelVerdict read(String pathId, String secret, String body) {
        return channel.read(new CallbackRequest(pathId, CallbackKind.PAYMENT,
                Map.of("stripe-signature", "t=" + T + ",v1=" + hmac(secret, T, body)), body.getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void aConnectedAccountsPaymentIsItsMerchants() {
        ChannelVerdict verdict = read("market", CONNECT_SECRET, onAccount("acct_1ShopB", paymentIntentSucceeded(1999, "usd")));
        assertEquals(new ChannelVerdict.Accepted(new Notice.Payment("shop-b", ChannelId.STRIPE, new ChannelTradeNo("pi_3Abc"), new OutTradeNo("ORDER-1"),
                "succeeded", new Money(new BigDecimal("19.99"), "USD"))), verdict);
    }

    @Test
    void aConnectedAccountsRefundIsItsMerchants() {
        String body = onAccount("acct_1ShopA", event("refund.updated",
                refundObject("succeeded", 500, "{\"out_refund_no\":\"RF-1\",\"out_trade_no\":\"ORDER-1\"}")));
        Notice.Refund refund = assertInstanceOf(Notice.Refund.class,
                assertInstanceOf(ChannelVerdict.Accepted.class, read("market", CONNECT_SECRET, body)).notice());
        assertEquals("shop-a", refund.merchantId());
        assertEquals("RF-1", refund.refundNo().value());
    }

    @Test
    void anAccountThePlatformDoesNotServeIsHeldNotPaid() {
        assertEquals(new ChannelVerdict.Malformed("the event's account is not a connected account configured for this platform"),
                read("market", CONNECT_SECRET, onAccount("acct_1Stranger", paymentIntentSucceeded(1999, "usd"))));
        assertEquals(new ChannelVerdict.Malformed("a Connect event names no account"),
                read("market", CONNECT_SECRET, paymentIntentSucceeded(1999, "usd")));
    }

    /** A platform configured before any of its accounts: its events are held until their account is, never its own. */
    @Test
    void aPlatformWithNoConnectedAccountYetHoldsEveryPaymentAndRefund() {
        assertEquals(new ChannelVerdict.Malformed("the event's account is not a connected account configured for this platform"),
                read("bare", CONNECT_SECRET, onAccount("acct_1ShopA", paymentIntentSucceeded(1999, "usd"))));
        assertEquals(new ChannelVerdict.Malformed("the event's account is not a connected account configured for this platform"),
                read("bare", CONNECT_SECRET, onAccount("acct_1ShopA", event("refund.updated",
                        refundObject("succeeded", 500, "{\"out_refund_no\":\"RF-1\",\"out_trade_no\":\"ORDER-1\"}")))));
        assertEquals(new ChannelVerdict.Malformed("a Connect event names no account"),
                read("bare", CONNECT_SECRET, paymentIntentSucceeded(1999, "usd")));
        assertEquals(new ChannelVerdict.Malformed("a Connect event names no account"), channel.parseStored(new CallbackRequest(
                "bare", CallbackKind.PAYMENT, Map.of(), paymentIntentSucceeded(1999, "usd").getBytes(StandardCharsets.UTF_8))));
        assertInstanceOf(Notice.Ignored.class, assertInstanceOf(ChannelVerdict.Accepted.class, read("bare", CONNECT_SECRET,
                onAccount("acct_1ShopA", event("account.updated", "{\"id\":\"acct_1ShopA\",\"object\":\"account\"}"))))
                .notice());
    }

    @Test
    void aSubMerchantsOwnPathTakesOnlyItsOwnAccount() {
        assertEquals("shop-a", ((Notice.Payment) ((ChannelVerdict.Accepted) read("shop-a", CONNECT_SECRET,
                onAccount("acct_1ShopA", paymentIntentSucceeded(100, "usd")))).notice()).merchantId());
        assertInstanceOf(ChannelVerdict.Malformed.class,
                read("shop-a", CONNECT_SECRET, onAccount("acct_1ShopB", paymentIntentSucceeded(100, "usd"))));
    }

    @Test
    void eachEndpointIsProvedByItsOwnSecret() {
        assertInstanceOf(ChannelVerdict.BadSignature.class,
                read("market", SECRET, onAccount("acct_1ShopA", paymentIntentSucceeded(1999, "usd"))));
        assertInstanceOf(ChannelVerdict.BadSignature.class, read("default", CONNECT_SECRET, paymentIntentSucceeded(1999, "usd")));
    }

    @Test
    void eventsNotUsedAreIgnoredWhateverTheirAccount() {
        assertInstanceOf(Notice.Ignored.class, assertInstanceOf(ChannelVerdict.Accepted.class, read("market", CONNECT_SECRET,
                onAccount("acct_1Stranger", event("account.updated", "{\"id\":\"acct_1Stranger\",\"object\":\"account\"}"))))
                .notice());
    }

    @Test
    void aStoredCallbackIsReadAgainForItsMerchant() {
        String body = onAccount("acct_1ShopA", paymentIntentSucceeded(1999, "usd"));
        ChannelVerdict verdict = channel.parseStored(new CallbackRequest("shop-a", CallbackKind.PAYMENT, Map.of(),
                body.getBytes(StandardCharsets.UTF_8)));
        assertEquals("shop-a", ((Notice.Payment) ((ChannelVerdict.Accepted) verdict).notice()).merchantId());
    }
}
