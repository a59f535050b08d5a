package io.paycallback.channel.wxpay;

import io.paycallback.channel.CallbackKind;
import io.paycallback.channel.CallbackRequest;
import io.paycallback.channel.Endpoint;
import io.paycallback.channel.Fuzz;
import io.paycallback.channel.Notice;
import io.paycallback.channel.PublicKeys;
import io.paycallback.channel.TestKeys;
import io.paycallback.channel.ChannelVerdict;
import io.paycallback.trade.ChannelId;
import io.paycallback.trade.ChannelTradeNo;
import io.paycallback.trade.InvalidMoney;
import io.paycallback.trade.Money;
import io.paycallback.trade.OutTradeNo;
import io.paycallback.trade.RefundNo;
import org.junit.jupiter.api.Test;

import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.PrivateKey;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static io.paycallback.channel.Fuzz.json;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Hostile bytes against WeChat Pay's verify and parse: whatever arrives, {@link WxPayChannel#read} returns a verdict,
 * accepts nothing that is unsigned or changed after signing, and turns everything signed that it cannot understand
 * into {@link ChannelVerdict.Malformed}, which the service quarantines. 100k tries in all (about 15 s on 2 shared cores).
 */
class WxPayChannelFuzzTest {

    /** 1024 bits: signing is the cost of every signed try, and the verification path is the same for any size. */
    private static final KeyPair WXPAY = TestKeys.rsa(1024);
    private static final KeyPair STRANGER = TestKeys.rsa(1024);
    private static final String SERIAL = "5157F09EFDC096DE15EBE81A47057A7232F1B8E1";
    private static final String STRANGER_SERIAL = "PUB_KEY_ID_0114232134912410000000000000";
    private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");
    private static final long T = NOW.getEpochSecond();
    private static final String[] HEADERS = {"wechatpay-timestamp", "wechatpay-nonce", "wechatpay-signature",
            "wechatpay-serial", "wechatpay-signature-type"};
    private static final String[] CURRENCIES = {"CNY", "USD", "JPY", null};
    private static final String[] TRADE_STATES = {"SUCCESS", "SUCCESS", "SUCCESS", "NOTPAY", "CLOSED", "PAYERROR", "REFUND"};
    private static final String[] REFUND_STATES = {"SUCCESS", "CLOSED", "ABNORMAL", "PROCESSING"};

    private final WxPayChannel channel = new WxPayChannel(Map.of("default", new WxPayMerchant(WxPayFixture.MCHID,
            WxPayMerchant.apiV3Key(WxPayFixture.API_V3_KEY), Map.of(
                    SERIAL, PublicKeys.parse(TestKeys.base64Der(WXPAY.getPublic()), "k"),
                    STRANGER_SERIAL, PublicKeys.parse(TestKeys.base64Der(STRANGER.getPublic()), "k")))),
            Clock.fixed(NOW, ZoneOffset.UTC));

    /** A partner with two sub-merchants, for the combine and partner shapes (its key the same, to share encrypt()). */
    private static final String SP_MCHID = "1230000109";
    private static final Map<String, String> SUB_MERCHANTS = Map.of("1900000201", "shop-a", "1900000202", "shop-b");
    private final WxPayChannel partner = new WxPayChannel(Map.of(
            "default", new WxPayMerchant(WxPayFixture.MCHID, WxPayMerchant.apiV3Key(WxPayFixture.API_V3_KEY),
                    Map.of(SERIAL, PublicKeys.parse(TestKeys.base64Der(WXPAY.getPublic()), "k"))),
            "market", new WxPayMerchant(SP_MCHID, WxPayMerchant.apiV3Key(WxPayFixture.API_V3_KEY),
                    Map.of(SERIAL, PublicKeys.parse(TestKeys.base64Der(WXPAY.getPublic()), "k")), new Endpoint.Platform(SUB_MERCHANTS))),
            Clock.fixed(NOW, ZoneOffset.UTC));

    /** A generated notice: its signed request and the notice it must read as (null when it was damaged). */
    private record Case(CallbackRequest request, Notice expected, boolean damaged) {
    }

    @Test
    void unsignedRequestsAreNeverAccepted() {
        Fuzz.forAll("wxpay unsigned", Fuzz.TRIES, fuzz -> {
            byte[] body = switch (fuzz.nextInt(3)) {
                case 0 -> fuzz.bytes(512);
                case 1 -> fuzz.mutate(generated(fuzz, 0.1).request().body());
                default -> generated(fuzz, 0).request().body();
            };
            Map<String, String> headers = new HashMap<>();
            headers.put("wechatpay-timestamp", fuzz.chance(0.7) ? Long.toString(T + fuzz.nextInt(11) - 5) : fuzz.text());
            headers.put("wechatpay-nonce", fuzz.text());
            headers.put("wechatpay-serial", fuzz.chance(0.7) ? SERIAL : fuzz.text());
            headers.put("wechatpay-signature", switch (fuzz.nextInt(4)) {
                case 0 -> Base64.getEncoder().encodeToString(fuzz.bytes(256));
                case 1 -> "WECHATPAY/SIGNTEST/" + fuzz.text();
                case 2 -> signature(STRANGER.getPrivate(), headers.get("wechatpay-timestamp"), headers.get("wechatpay-nonce"), body);
                default -> fuzz.text();
            });
            if (fuzz.chance(0.5)) {
                headers.put("wechatpay-signature-type", fuzz.chance(0.5) ? "WECHATPAY2-SHA256-RSA2048" : fuzz.text());
            }
            if (fuzz.chance(0.2)) {
                headers.remove(fuzz.pick(HEADERS));
            }
            CallbackRequest request = new CallbackRequest(fuzz.chance(0.9) ? "default" : fuzz.text(), CallbackKind.PAYMENT, headers, body);

            assertThat(channel.read(request)).isNotNull().isNotInstanceOf(ChannelVerdict.Accepted.class);
            assertThat(channel.parseStored(request)).isNotNull();
        });
    }

    @Test
    void anyChangeAfterSigningIsRefused() {
        List<Case> originals = new ArrayList<>();
        Fuzz.forAll("wxpay originals", 64, fuzz -> originals.add(generated(fuzz, 0)));
        Fuzz.forAll("wxpay mutated", Fuzz.TRIES, fuzz -> {
            CallbackRequest original = originals.get(fuzz.nextInt(originals.size())).request();
            Map<String, String> headers = new HashMap<>(original.headers());
            byte[] body = original.body();
            switch (fuzz.nextInt(5)) {
                case 0 -> headers.put("wechatpay-timestamp", Long.toString(T + 1 + fuzz.nextInt(299)));
                case 1 -> headers.put("wechatpay-nonce", headers.get("wechatpay-nonce") + fuzz.pick(new String[]{"0", "x", "-"}));
                case 2 -> headers.put("wechatpay-serial", STRANGER_SERIAL);
                default -> body = fuzz.mutate(body);
            }
            if (headers.equals(original.headers()) && Arrays.equals(body, original.body())) {
                return;
            }
            ChannelVerdict verdict = channel.read(new CallbackRequest("default", original.kind(), headers, body));

            assertThat(verdict).isInstanceOf(ChannelVerdict.BadSignature.class);
        });
    }

    @Test
    void signedButUnreadableIsMalformed() {
        Fuzz.forAll("wxpay signed hostile", Fuzz.TRIES / 2, fuzz -> {
            Case generated = generated(fuzz, fuzz.chance(0.3) ? 0 : 0.15);
            Fuzz.assertSignedVerdict(channel, generated.request(), generated.damaged(), generated.expected());
        });
    }

    /**
     * Combine notices of a merchant or of a partner, whole or damaged: undamaged, each sub-order is read as the order
     * it is (paid, or ignored) for the merchant it belongs to, and one sub-order no merchant of ours owns holds the
     * whole notice; damaged, the notice is held or read into storable payments only.
     */
    @Test
    void combineNoticesAreReadOrderByOrderOrHeldWhole() {
        Fuzz.forAll("wxpay combine", Fuzz.TRIES / 8, fuzz -> {
            boolean damaged = fuzz.chance(0.5);
            boolean asPartner = fuzz.chance(0.5);
            double damage = damaged ? 0.1 : 0;
            boolean[] hit = {false};
            String mchid = asPartner ? SP_MCHID : WxPayFixture.MCHID;
            List<byte[]> subOrders = new ArrayList<>();
            List<Notice> expected = new ArrayList<>();
            boolean stranger = false;
            for (int n = 0, count = 1 + fuzz.nextInt(4); n < count; n++) {
                Map<String, byte[]> sub = new LinkedHashMap<>();
                sub.put("mchid", json(mchid));
                String subMchid = asPartner ? fuzz.pick(new String[]{"1900000201", "1900000202", "1900000999"}) : null;
                if (subMchid != null) {
                    sub.put("sub_mchid", json(subMchid));
                    stranger |= !SUB_MERCHANTS.containsKey(subMchid);
                }
                String state = fuzz.pick(TRADE_STATES);
                String tradeNo = "42" + fuzz.nextLong(0, Long.MAX_VALUE);
                String outTradeNo = "ORDER-" + fuzz.nextLong(0, Long.MAX_VALUE);
                long minor = fuzz.nextLong(0, 1_000_000_000_000L);
                sub.put("trade_state", json(state));
                sub.put("transaction_id", json(tradeNo));
                sub.put("out_trade_no", json(outTradeNo));
                Map<String, byte[]> amount = new LinkedHashMap<>();
                amount.put("total_amount", json(minor));
                amount.put("currency", json("CNY"));
                sub.put("amount", fuzz.object(amount, damage, hit));
                subOrders.add(fuzz.object(sub, damage, hit));
                String merchantId = subMchid == null ? "default" : SUB_MERCHANTS.get(subMchid);
                expected.add("SUCCESS".equals(state)
                        ? new Notice.Payment(merchantId, ChannelId.WXPAY, new ChannelTradeNo(tradeNo), new OutTradeNo(outTradeNo), state, new Money(money(minor), "CNY"))
                        : new Notice.Ignored("trade_state " + state));
            }
            Map<String, byte[]> fields = new LinkedHashMap<>();
            fields.put("combine_appid", json("wxd678efh567hg6787"));
            fields.put("combine_mchid", json(mchid));
            fields.put("combine_out_trade_no", json("COMBINE-" + fuzz.nextInt(1_000_000)));
            fields.put("sub_orders", Fuzz.concat("[".getBytes(StandardCharsets.UTF_8),
                    String.join(",", subOrders.stream().map(b -> new String(b, StandardCharsets.ISO_8859_1)).toList())
                            .getBytes(StandardCharsets.ISO_8859_1), "]".getBytes(StandardCharsets.UTF_8)));
            byte[] plaintext = fuzz.object(fields, damage, hit);
            CallbackRequest request = signedNotice(asPartner ? "market" : "default", plaintext, fuzz);

            if (!hit[0]) {
                ChannelVerdict verdict = partner.read(request);
                assertThat(verdict).isEqualTo(stranger
                        ? new ChannelVerdict.Malformed("sub_mchid is not a sub-merchant configured for this partner")
                        : new ChannelVerdict.Accepted(new Notice.Combined(new OutTradeNo(new String(fields.get("combine_out_trade_no"),
                        StandardCharsets.UTF_8).replace("\"", "")), expected)));
                assertThat(partner.parseStored(request)).isEqualTo(verdict);
            } else {
                Fuzz.assertSignedVerdict(partner, request, true, null);
            }
        });
    }

    private static java.math.BigDecimal money(long minor) {
        try {
            return Money.fromMinorUnits(minor, "CNY");
        } catch (InvalidMoney e) {
            throw new IllegalStateException(e);
        }
    }

    /** A plaintext encrypted and signed as WeChat Pay sends it, to the path of {@code pathId}. */
    private static CallbackRequest signedNotice(String pathId, byte[] plaintext, Fuzz fuzz) {
        String nonce = "n" + fuzz.nextLong(0, 100_000_000_000L);
        String body = WxPayFixture.body("TRANSACTION.SUCCESS", encrypt(plaintext, nonce))
                .replace(WxPayFixture.NONCE, nonce);
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        return new CallbackRequest(pathId, CallbackKind.PAYMENT, signedHeaders(bytes, fuzz), bytes);
    }

    /** WeChat Pay's headers for the body, signed with its key at a time within the tolerance. */
    private static Map<String, String> signedHeaders(byte[] body, Fuzz fuzz) {
        String timestamp = Long.toString(T - fuzz.nextInt(300));
        String signatureNonce = "nonce-" + fuzz.nextLong(0, Long.MAX_VALUE);
        Map<String, String> headers = new HashMap<>();
        headers.put("wechatpay-timestamp", timestamp);
        headers.put("wechatpay-nonce", signatureNonce);
        headers.put("wechatpay-signature", signature(WXPAY.getPrivate(), timestamp, signatureNonce, body));
        headers.put("wechatpay-serial", SERIAL);
        headers.put("wechatpay-signature-type", "WECHATPAY2-SHA256-RSA2048");
        return headers;
    }

    /**
     * A signed notice; with {@code damage} above 0 its fields, the resource's fields and sometimes the whole body are
     * damaged before signing. The plaintext is encrypted as bytes, so invalid UTF-8 reaches the JSON parser.
     */
    private static Case generated(Fuzz fuzz, double damage) {
        boolean[] damaged = {false};
        String currency = fuzz.pick(CURRENCIES);
        Map<String, byte[]> amount = new LinkedHashMap<>();
        Map<String, byte[]> fields = new LinkedHashMap<>();
        fields.put("mchid", json(WxPayFixture.MCHID));
        String tradeNo = "42" + fuzz.nextLong(0, Long.MAX_VALUE);
        String outTradeNo = "ORDER-" + fuzz.nextLong(0, Long.MAX_VALUE);
        long minor = fuzz.nextLong(0, 1_000_000_000_000L);
        fields.put("out_trade_no", json(outTradeNo));
        fields.put("transaction_id", json(tradeNo));
        boolean refund = fuzz.chance(0.4);
        String state = fuzz.pick(refund ? REFUND_STATES : TRADE_STATES);
        String refundNo = "REFUND-" + fuzz.nextLong(0, Long.MAX_VALUE);
        if (refund) {
            fields.put("out_refund_no", json(refundNo));
            fields.put("refund_id", json("5000" + fuzz.nextLong(0, Long.MAX_VALUE)));
            fields.put("refund_status", json(state));
            amount.put("total", json(minor + 1));
            amount.put("refund", json(minor));
        } else {
            fields.put("trade_state", json(state));
            amount.put("total", json(minor));
        }
        if (currency != null) {
            amount.put("currency", json(currency));
        }
        fields.put("amount", fuzz.object(amount, damage, damaged));
        byte[] plaintext = fuzz.object(fields, damage, damaged);

        String nonce = "n" + fuzz.nextLong(0, 100_000_000_000L);
        Map<String, byte[]> resource = new LinkedHashMap<>();
        resource.put("original_type", json("transaction"));
        resource.put("algorithm", json("AEAD_AES_256_GCM"));
        resource.put("ciphertext", json(encrypt(plaintext, nonce)));
        resource.put("associated_data", json(WxPayFixture.ASSOCIATED_DATA));
        resource.put("nonce", json(nonce));
        Map<String, byte[]> outer = new LinkedHashMap<>();
        outer.put("id", json("EV-" + fuzz.nextInt(1_000_000)));
        outer.put("event_type", json(refund ? "REFUND.SUCCESS" : "TRANSACTION.SUCCESS"));
        outer.put("resource", fuzz.object(resource, damage / 2, damaged));
        byte[] body = fuzz.object(outer, damage / 3, damaged);
        if (damage > 0 && fuzz.chance(0.1)) {
            damaged[0] = true;
            body = fuzz.chance(0.5) ? fuzz.mutate(body) : fuzz.bytes(256);
        }

        CallbackRequest request = new CallbackRequest("default", refund ? CallbackKind.REFUND : CallbackKind.PAYMENT,
                signedHeaders(body, fuzz), body);
        return new Case(request, damaged[0] ? null : expected(refund, state, tradeNo, outTradeNo, refundNo, minor, currency, fields),
                damaged[0]);
    }

    private static Notice expected(boolean refund, String state, String tradeNo, String outTradeNo, String refundNo,
                                   long minor, String currency, Map<String, byte[]> fields) {
        String code = currency == null ? "CNY" : currency;
        try {
            if (refund) {
                Notice.RefundResult result = switch (state) {
                    case "SUCCESS" -> Notice.RefundResult.SUCCEEDED;
                    case "CLOSED", "ABNORMAL" -> Notice.RefundResult.FAILED;
                    default -> null;
                };
                String refundId = new String(fields.get("refund_id"), StandardCharsets.UTF_8).replace("\"", "");
                return result == null ? new Notice.RefundPending("default", ChannelId.WXPAY, new RefundNo(refundNo), refundId, new ChannelTradeNo(tradeNo),
                        new OutTradeNo(outTradeNo), new Money(Money.fromMinorUnits(minor, code), code))
                        : new Notice.Refund("default", ChannelId.WXPAY, new RefundNo(refundNo), refundId, new ChannelTradeNo(tradeNo), new OutTradeNo(outTradeNo), result,
                        new Money(Money.fromMinorUnits(minor, code), code), null);
            }
            return "SUCCESS".equals(state)
                    ? new Notice.Payment("default", ChannelId.WXPAY, new ChannelTradeNo(tradeNo), new OutTradeNo(outTradeNo), state, new Money(Money.fromMinorUnits(minor, code), code))
                    : new Notice.Ignored("trade_state " + state);
        } catch (InvalidMoney e) {
            throw new IllegalStateException(e);
        }
    }

    private static String encrypt(byte[] plaintext, String nonce) {
        try {
            Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
            cipher.init(Cipher.ENCRYPT_MODE, new SecretKeySpec(WxPayFixture.API_V3_KEY.getBytes(StandardCharsets.UTF_8), "AES"),
                    new GCMParameterSpec(128, nonce.getBytes(StandardCharsets.UTF_8)));
            cipher.updateAAD(WxPayFixture.ASSOCIATED_DATA.getBytes(StandardCharsets.UTF_8));
            return Base64.getEncoder().encodeToString(cipher.doFinal(plaintext));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String signature(PrivateKey key, String timestamp, String nonce, byte[] body) {
        return TestKeys.sha256WithRsa(key, Fuzz.concat((timestamp + "\n" + nonce + "\n").getBytes(StandardCharsets.UTF_8), body,
                new byte[]{'\n'}));
    }
}
