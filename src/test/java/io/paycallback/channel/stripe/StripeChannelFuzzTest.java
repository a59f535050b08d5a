package io.paycallback.channel.stripe;

import io.paycallback.channel.CallbackKind;
import io.paycallback.channel.CallbackRequest;
import io.paycallback.channel.Endpoint;
import io.paycallback.channel.Fuzz;
import io.paycallback.channel.Notice;
import io.paycallback.channel.ChannelVerdict;
import io.paycallback.trade.ChannelId;
import io.paycallback.trade.ChannelTradeNo;
import io.paycallback.trade.InvalidMoney;
import io.paycallback.trade.Money;
import io.paycallback.trade.OutTradeNo;
import io.paycallback.trade.RefundNo;
import org.junit.jupiter.api.Test;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import static io.paycallback.channel.Fuzz.json;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Hostile bytes against Stripe's verify and parse: whatever arrives, {@link StripeChannel#read} returns a verdict,
 * accepts nothing that is unsigned or changed after signing, and turns everything signed that it cannot understand
 * into {@link ChannelVerdict.Malformed}, which the service quarantines. 100k tries in all (about 10 s on 2 shared cores).
 */
class StripeChannelFuzzTest {

    private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");
    private static final long T = NOW.getEpochSecond();
    private static final String[] CURRENCIES = {"usd", "jpy", "eur", "cny", "USD"};
    private static final String[] REFUND_STATES = {"succeeded", "failed", "canceled", "pending"};
    private static final String[] REFUND_EVENTS = {"refund.created", "refund.updated", "refund.failed", "charge.refund.updated"};
    private static final String[] OTHER_EVENTS = {"payment_intent.created", "charge.succeeded", "customer.created"};

    private final StripeChannel channel = new StripeChannel(
            Map.of("default", new StripeMerchant(List.of(StripeFixture.SECRET, StripeFixture.NEXT_SECRET))),
            Clock.fixed(NOW, ZoneOffset.UTC));

    private record Case(CallbackRequest request, Notice expected, boolean damaged) {
    }

    @Test
    void unsignedRequestsAreNeverAccepted() {
        Fuzz.forAll("stripe unsigned", Fuzz.TRIES, fuzz -> {
            byte[] body = switch (fuzz.nextInt(3)) {
                case 0 -> fuzz.bytes(512);
                case 1 -> fuzz.mutate(generated(fuzz, 0.1).request().body());
                default -> generated(fuzz, 0).request().body();
            };
            String t = fuzz.chance(0.7) ? Long.toString(T - fuzz.nextInt(300)) : fuzz.text();
            String header = switch (fuzz.nextInt(6)) {
                case 0 -> "t=" + t + ",v1=" + HexFormat.of().formatHex(fuzz.bytes(40));
                case 1 -> "t=" + t + ",v1=" + hmac("whsec_stranger", t, body);
                case 2 -> "t=" + t + ",v0=" + hmac(StripeFixture.SECRET, t, body);
                case 3 -> "t=" + t + ",v1=" + fuzz.text() + ",v1=" + HexFormat.of().formatHex(fuzz.bytes(32));
                case 4 -> fuzz.chance(0.5) ? null : fuzz.text();
                default -> "t=" + fuzz.text() + "\r\nStripe-Signature: t=" + t + ",v1=" + fuzz.text();
            };
            Map<String, String> headers = header == null ? Map.of() : Map.of("stripe-signature", header);
            CallbackRequest request = new CallbackRequest(fuzz.chance(0.9) ? "default" : fuzz.text(), CallbackKind.PAYMENT, headers, body);

            assertThat(channel.read(request)).isNotNull().isNotInstanceOf(ChannelVerdict.Accepted.class);
            assertThat(channel.parseStored(request)).isInstanceOfAny(ChannelVerdict.Accepted.class, ChannelVerdict.Malformed.class);
        });
    }

    @Test
    void anyChangeAfterSigningIsRefused() {
        List<Case> originals = new ArrayList<>();
        Fuzz.forAll("stripe originals", 64, fuzz -> originals.add(generated(fuzz, 0)));
        Fuzz.forAll("stripe mutated", Fuzz.TRIES, fuzz -> {
            CallbackRequest original = originals.get(fuzz.nextInt(originals.size())).request();
            String header = original.header("Stripe-Signature");
            byte[] body = original.body();
            if (fuzz.chance(0.2)) {
                long signedAt = Long.parseLong(header.substring(2, header.indexOf(',')));
                header = "t=" + (signedAt + 1 + fuzz.nextInt(200)) + header.substring(header.indexOf(','));
            } else {
                body = fuzz.mutate(body);
            }
            if (header.equals(original.header("Stripe-Signature")) && Arrays.equals(body, original.body())) {
                return;
            }
            ChannelVerdict verdict = channel.read(new CallbackRequest("default", original.kind(), Map.of("stripe-signature", header), body));

            assertThat(verdict).isInstanceOf(ChannelVerdict.BadSignature.class);
        });
    }

    @Test
    void signedButUnreadableIsMalformed() {
        Fuzz.forAll("stripe signed hostile", Fuzz.TRIES / 2, fuzz -> {
            Case generated = generated(fuzz, fuzz.chance(0.3) ? 0 : 0.15);
            Fuzz.assertSignedVerdict(channel, generated.request(), generated.damaged(), generated.expected());
        });
    }

    /**
     * A Connect platform's endpoint: whatever account an event names (one served, one not, none, or not a string), a
     * payment or refund is its account's merchant's or held as malformed, never another merchant's; events not used
     * stay ignored; and a body changed after signing is refused.
     */
    @Test
    void connectEventsAreTheirAccountsMerchantsOrHeld() {
        String connectSecret = "whsec_connect_4c1d8e2f9a7b6c5d4e3f2a1b";
        Map<String, String> accounts = Map.of("acct_1ShopA", "shop-a", "acct_1ShopB", "shop-b");
        StripeChannel platform = new StripeChannel(Map.of("market", new StripeMerchant(List.of(connectSecret), new Endpoint.Platform(accounts))),
                Clock.fixed(NOW, ZoneOffset.UTC));
        Fuzz.forAll("stripe connect", Fuzz.TRIES / 4, fuzz -> {
            Case generated = generated(fuzz, 0);
            String account = switch (fuzz.nextInt(5)) {
                case 0 -> "\"acct_1ShopA\"";
                case 1 -> "\"acct_1ShopB\"";
                case 2 -> "\"acct_" + fuzz.nextLong(0, Long.MAX_VALUE) + "\"";
                case 3 -> fuzz.chance(0.5) ? "null" : Long.toString(fuzz.nextLong(0, Long.MAX_VALUE));
                default -> null;
            };
            String body = new String(generated.request().body(), StandardCharsets.UTF_8);
            byte[] connect = (account == null ? body : "{\"account\":" + account + "," + body.substring(1))
                    .getBytes(StandardCharsets.UTF_8);
            String t = Long.toString(T - fuzz.nextInt(300));
            boolean changed = fuzz.chance(0.2);
            byte[] sent = changed ? fuzz.mutate(connect) : connect;
            ChannelVerdict verdict = platform.read(new CallbackRequest("market", CallbackKind.PAYMENT,
                    Map.of("stripe-signature", "t=" + t + ",v1=" + hmac(connectSecret, t, connect)), sent));

            if (changed && !Arrays.equals(sent, connect)) {
                assertThat(verdict).isInstanceOf(ChannelVerdict.BadSignature.class);
                return;
            }
            Notice expected = generated.expected();
            String merchant = account == null ? null : accounts.get(account.replace("\"", ""));
            if (expected instanceof Notice.Ignored) {
                assertThat(verdict).isEqualTo(new ChannelVerdict.Accepted(expected));
            } else if (merchant == null) {
                assertThat(verdict).isInstanceOf(ChannelVerdict.Malformed.class);
            } else {
                assertThat(verdict).isEqualTo(new ChannelVerdict.Accepted(Fuzz.ofMerchant(expected, merchant)));
            }
        });
    }

    /** A signed event; with {@code damage} above 0 its fields at every level, and sometimes the whole body, are damaged. */
    private static Case generated(Fuzz fuzz, double damage) {
        boolean[] damaged = {false};
        String currency = fuzz.pick(CURRENCIES);
        long minor = fuzz.nextLong(0, 1_000_000_000_000L);
        String outTradeNo = "ORDER-" + fuzz.nextLong(0, Long.MAX_VALUE);
        String paymentIntent = "pi_" + fuzz.nextLong(0, Long.MAX_VALUE);
        Map<String, byte[]> metadata = new LinkedHashMap<>();
        metadata.put("out_trade_no", json(outTradeNo));
        Map<String, byte[]> object = new LinkedHashMap<>();
        String type;
        String refundState = fuzz.pick(REFUND_STATES);
        String refundId = "re_" + fuzz.nextLong(0, Long.MAX_VALUE);
        String chargeId = "ch_" + fuzz.nextLong(0, Long.MAX_VALUE);
        switch (fuzz.nextInt(4)) {
            case 0, 1 -> {
                type = "payment_intent.succeeded";
                object.put("id", json(paymentIntent));
                object.put("object", json("payment_intent"));
                object.put("amount", json(minor));
                object.put("amount_received", json(minor));
                object.put("currency", json(currency));
                object.put("status", json("succeeded"));
            }
            case 2 -> {
                type = fuzz.pick(REFUND_EVENTS);
                object.put("id", json(refundId));
                object.put("object", json("refund"));
                object.put("amount", json(minor));
                object.put("currency", json(currency));
                object.put("payment_intent", json(paymentIntent));
                object.put("status", json(refundState));
            }
            default -> {
                type = fuzz.chance(0.8) ? "charge.refunded" : fuzz.pick(OTHER_EVENTS);
                object.put("id", json(chargeId));
                object.put("object", json("charge"));
                object.put("amount_refunded", json(minor));
                object.put("currency", json(currency));
                object.put("payment_intent", json(paymentIntent));
            }
        }
        object.put("metadata", fuzz.object(metadata, damage, damaged));
        Map<String, byte[]> data = new LinkedHashMap<>();
        data.put("object", fuzz.object(object, damage, damaged));
        Map<String, byte[]> event = new LinkedHashMap<>();
        event.put("id", json("evt_" + fuzz.nextInt(1_000_000)));
        event.put("object", json("event"));
        event.put("type", json(type));
        event.put("data", fuzz.object(data, damage / 2, damaged));
        byte[] body = fuzz.object(event, damage / 3, damaged);
        if (damage > 0 && fuzz.chance(0.1)) {
            damaged[0] = true;
            body = fuzz.chance(0.5) ? fuzz.mutate(body) : fuzz.bytes(256);
        }
        String t = Long.toString(T - fuzz.nextInt(300));
        String secret = fuzz.chance(0.5) ? StripeFixture.SECRET : StripeFixture.NEXT_SECRET;
        String header = "t=" + t + ",v1=" + hmac(secret, t, body) + (fuzz.chance(0.3) ? ",v0=" + hmac("x", t, body) : "");
        CallbackRequest request = new CallbackRequest("default", CallbackKind.PAYMENT, Map.of("stripe-signature", header), body);
        Notice expected = damaged[0] ? null
                : expected(type, minor, currency.toUpperCase(Locale.ROOT), outTradeNo, paymentIntent, refundId, refundState, chargeId);
        return new Case(request, expected, damaged[0]);
    }

    private static Notice expected(String type, long minor, String currency, String outTradeNo, String paymentIntent,
                                   String refundId, String refundState, String chargeId) {
        try {
            if (type.equals("payment_intent.succeeded")) {
                return new Notice.Payment("default", ChannelId.STRIPE, new ChannelTradeNo(paymentIntent), new OutTradeNo(outTradeNo), "succeeded",
                        new Money(Money.fromMinorUnits(minor, currency), currency));
            }
            if (type.equals("charge.refunded")) {
                return new Notice.Refund("default", ChannelId.STRIPE, new RefundNo(chargeId + ":refunded:" + minor), null, new ChannelTradeNo(paymentIntent),
                        new OutTradeNo(outTradeNo), Notice.RefundResult.SUCCEEDED, null, new Money(Money.fromMinorUnits(minor, currency), currency));
            }
            if (!type.startsWith("refund.") && !type.equals("charge.refund.updated")) {
                return new Notice.Ignored("event type not used");
            }
            return switch (refundState) {
                case "pending" -> new Notice.RefundPending("default", ChannelId.STRIPE, new RefundNo(refundId), refundId, new ChannelTradeNo(paymentIntent),
                        new OutTradeNo(outTradeNo), new Money(Money.fromMinorUnits(minor, currency), currency));
                case "succeeded" -> new Notice.Refund("default", ChannelId.STRIPE, new RefundNo(refundId), refundId, new ChannelTradeNo(paymentIntent), new OutTradeNo(outTradeNo),
                        Notice.RefundResult.SUCCEEDED, new Money(Money.fromMinorUnits(minor, currency), currency), null);
                default -> new Notice.Refund("default", ChannelId.STRIPE, new RefundNo(refundId), refundId, new ChannelTradeNo(paymentIntent), new OutTradeNo(outTradeNo),
                        Notice.RefundResult.FAILED, new Money(Money.fromMinorUnits(minor, currency), currency), null);
            };
        } catch (InvalidMoney e) {
            throw new IllegalStateException(e);
        }
    }

    private static String hmac(String secret, String timestamp, byte[] body) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            mac.update((timestamp + ".").getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(mac.doFinal(body));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }
}
