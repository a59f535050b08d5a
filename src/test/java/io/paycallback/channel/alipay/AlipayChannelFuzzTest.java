package io.paycallback.channel.alipay;

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
import io.paycallback.trade.Money;
import io.paycallback.trade.OutTradeNo;
import io.paycallback.trade.RefundNo;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.Charset;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Hostile bytes against Alipay's verify and parse: whatever arrives, {@link AlipayChannel#read} returns a verdict,
 * accepts nothing that is unsigned or whose signed parameters changed, and turns everything signed that it cannot
 * understand into {@link ChannelVerdict.Malformed}, which the service quarantines. 100k tries in all (about 20 s on 2 shared
 * cores).
 */
class AlipayChannelFuzzTest {

    /** 1024 bits: signing is the cost of every signed try, and the verification path is the same for any size. */
    private static final KeyPair ALIPAY = TestKeys.rsa(1024);
    private static final KeyPair STRANGER = TestKeys.rsa(1024);
    private static final String[] CHARSETS = {"utf-8", "UTF-8", "gbk", "GBK"};
    private static final String[] TRADE_STATES = {"TRADE_SUCCESS", "TRADE_SUCCESS", "TRADE_FINISHED", "WAIT_BUYER_PAY", "TRADE_CLOSED"};
    private static final String[] READ = {"trade_status", "trade_no", "out_trade_no", "total_amount", "out_biz_no", "refund_fee"};

    private final AlipayChannel channel = new AlipayChannel(Map.of("default",
            new AlipayMerchant(AlipayFixture.APP_ID, PublicKeys.parse(TestKeys.base64Der(ALIPAY.getPublic()), "k"))));

    private record Case(Map<String, String> params, CallbackRequest request, Notice expected, boolean damaged) {
    }

    @Test
    void unsignedRequestsAreNeverAccepted() {
        Fuzz.forAll("alipay unsigned", Fuzz.TRIES, fuzz -> {
            Case generated = generated(fuzz, 0.1);
            Map<String, String> params = new LinkedHashMap<>(generated.params());
            switch (fuzz.nextInt(5)) {
                case 0 -> params.put("sign", Base64.getEncoder().encodeToString(fuzz.bytes(128)));
                case 1 -> params.put("sign", AlipayFixture.signed(generated.params(), STRANGER.getPrivate()).get("sign"));
                case 2 -> params.remove("sign");
                case 3 -> params.put("sign", fuzz.text());
                default -> params.put("sign_type", fuzz.chance(0.5) ? "RSA" : fuzz.text());
            }
            byte[] body = switch (fuzz.nextInt(4)) {
                case 0 -> fuzz.bytes(512);
                case 1 -> fuzz.mutate(AlipayFixture.form(params));
                default -> AlipayFixture.form(params);
            };
            CallbackRequest request = new CallbackRequest(fuzz.chance(0.9) ? "default" : fuzz.text(), CallbackKind.PAYMENT,
                    Map.of("content-type", fuzz.chance(0.9) ? "application/x-www-form-urlencoded" : fuzz.text()), body);

            assertThat(channel.read(request)).isNotNull().isNotInstanceOf(ChannelVerdict.Accepted.class);
            assertThat(channel.parseStored(request)).isNotNull();
        });
    }

    /**
     * Alipay signs the decoded parameters, not the bytes: a change that decodes to the same signed parameters ({@code +}
     * for {@code %20}, an empty parameter, the order) is the same notice. Anything else must be refused; a duplicated
     * parameter is refused whatever its value, since either copy could be the one a reader takes.
     */
    @Test
    void anyChangeOfTheSignedParametersIsRefused() {
        List<Case> originals = new ArrayList<>();
        Fuzz.forAll("alipay originals", 64, fuzz -> originals.add(generated(fuzz, 0)));
        Fuzz.forAll("alipay mutated", Fuzz.TRIES, fuzz -> {
            Case original = originals.get(fuzz.nextInt(originals.size()));
            byte[] body = fuzz.chance(0.2)
                    ? Fuzz.concat(original.request().body(), ("&" + fuzz.pick(READ) + "=" + fuzz.nextInt(100)).getBytes(StandardCharsets.US_ASCII))
                    : fuzz.mutate(original.request().body());
            ChannelVerdict verdict = channel.read(new CallbackRequest("default", CallbackKind.PAYMENT, original.request().headers(), body));

            if (verdict instanceof ChannelVerdict.Accepted accepted) {
                Charset charset = Charset.forName(original.params().get("charset"));
                assertThat(decoded(body, charset).map(AlipayChannel::signedContent))
                        .contains(AlipayChannel.signedContent(original.params()));
                assertThat(accepted.notice()).isEqualTo(original.expected());
            }
        });
    }

    @Test
    void signedButUnreadableIsMalformed() {
        Fuzz.forAll("alipay signed hostile", Fuzz.TRIES / 2, fuzz -> {
            Case generated = generated(fuzz, fuzz.chance(0.3) ? 0 : 0.15);
            Fuzz.assertSignedVerdict(channel, generated.request(), generated.damaged(), generated.expected());
        });
    }

    /**
     * A signed notice in UTF-8 or GBK; with {@code damage} above 0 each value is replaced by hostile text (which the
     * form encoding carries in the declared charset, so the signature still holds) or dropped.
     */
    /**
     * A platform's third-party application: whichever merchant app a notice names as {@code auth_app_id} (one that
     * authorised it, one that did not, none), it is that merchant's or held, never another's; and naming another
     * merchant after signing is refused, the field being signed like every other.
     */
    @Test
    void aThirdPartyAppsNoticesAreTheirAuthorisingMerchantsOrHeld() {
        String isvApp = "2021000000000099";
        Map<String, String> authorised = Map.of("2021000000000201", "shop-a", "2021000000000202", "shop-b");
        AlipayChannel isv = new AlipayChannel(Map.of("market", new AlipayMerchant(isvApp,
                PublicKeys.parse(TestKeys.base64Der(ALIPAY.getPublic()), "k"), new Endpoint.Platform(authorised))));
        Fuzz.forAll("alipay third-party app", Fuzz.TRIES / 20, fuzz -> {
            Case generated = generated(fuzz, 0);
            Map<String, String> params = new LinkedHashMap<>(generated.params());
            params.remove("sign");
            params.put("app_id", isvApp);
            String authApp = fuzz.pick(new String[]{"2021000000000201", "2021000000000202", "2021000000000999", ""});
            if (authApp.isEmpty()) {
                params.remove("auth_app_id");
            } else {
                params.put("auth_app_id", authApp);
            }
            Map<String, String> signed = AlipayFixture.signed(params, ALIPAY.getPrivate());
            boolean swapped = !authApp.isEmpty() && fuzz.chance(0.2);
            if (swapped) {
                signed.put("auth_app_id", authApp.equals("2021000000000201") ? "2021000000000202" : "2021000000000201");
            }
            CallbackRequest request = AlipayFixture.request(CallbackKind.PAYMENT, signed);
            ChannelVerdict verdict = isv.read(new CallbackRequest("market", CallbackKind.PAYMENT, request.headers(), request.body()));

            String merchant = authorised.get(authApp);
            if (swapped) {
                assertThat(verdict).isInstanceOf(ChannelVerdict.BadSignature.class);
            } else if (merchant == null) {
                assertThat(verdict).isInstanceOf(ChannelVerdict.Malformed.class);
            } else {
                assertThat(verdict).isEqualTo(new ChannelVerdict.Accepted(Fuzz.ofMerchant(generated.expected(), merchant)));
            }
        });
    }

    private static Case generated(Fuzz fuzz, double damage) {
        String tradeStatus = fuzz.pick(TRADE_STATES);
        String amount = fuzz.nextLong(0, 10_000_000_000L) + (fuzz.chance(0.5) ? "" : "." + fuzz.nextInt(100));
        if (amount.matches(".*\\.\\d")) {
            amount = amount + fuzz.nextInt(10);
        }
        Map<String, String> params = AlipayFixture.payment(tradeStatus, amount, fuzz.pick(CHARSETS));
        params.put("trade_no", "2026" + fuzz.nextLong(0, Long.MAX_VALUE));
        params.put("out_trade_no", "ORDER-" + fuzz.nextLong(0, Long.MAX_VALUE));
        boolean refund = fuzz.chance(0.3);
        if (refund) {
            params.put("out_biz_no", "REFUND-" + fuzz.nextLong(0, Long.MAX_VALUE));
            params.put("refund_fee", amount);
        }
        boolean damaged = false;
        for (String name : new ArrayList<>(params.keySet())) {
            if (!name.equals("charset") && !name.equals("app_id") && !name.equals("sign_type") && fuzz.chance(damage)) {
                damaged = true;
                if (fuzz.chance(0.2)) {
                    params.remove(name);
                } else {
                    params.put(name, fuzz.text());
                }
            }
        }
        Map<String, String> signed = AlipayFixture.signed(params, ALIPAY.getPrivate());
        CallbackRequest request = AlipayFixture.request(CallbackKind.PAYMENT, signed);
        return new Case(signed, request, damaged ? null : expected(params, refund, tradeStatus, amount), damaged);
    }

    private static Notice expected(Map<String, String> params, boolean refund, String tradeStatus, String amount) {
        BigDecimal yuan = new BigDecimal(amount).setScale(2);
        if (refund) {
            return new Notice.Refund("default", ChannelId.ALIPAY, new RefundNo(params.get("out_biz_no")), null,
                    new ChannelTradeNo(params.get("trade_no")), new OutTradeNo(params.get("out_trade_no")),
                    Notice.RefundResult.SUCCEEDED, null, new Money(yuan, "CNY"));
        }
        if (tradeStatus.equals("WAIT_BUYER_PAY") || tradeStatus.equals("TRADE_CLOSED")) {
            return new Notice.Ignored("trade_status " + tradeStatus);
        }
        return new Notice.Payment("default", ChannelId.ALIPAY, new ChannelTradeNo(params.get("trade_no")),
                new OutTradeNo(params.get("out_trade_no")), tradeStatus, new Money(yuan, "CNY"));
    }

    /** A reference reading of a form, strict like the channel's: empty when it has a bad escape, bad bytes or a duplicate. */
    private static Optional<Map<String, String>> decoded(byte[] body, Charset charset) {
        Map<String, String> params = new HashMap<>();
        for (String pair : new String(body, StandardCharsets.ISO_8859_1).split("&")) {
            if (pair.isEmpty()) {
                continue;
            }
            int equals = pair.indexOf('=');
            Optional<String> name = percentDecoded(equals < 0 ? pair : pair.substring(0, equals), charset);
            Optional<String> value = equals < 0 ? Optional.of("") : percentDecoded(pair.substring(equals + 1), charset);
            if (name.isEmpty() || value.isEmpty() || params.put(name.get(), value.get()) != null) {
                return Optional.empty();
            }
        }
        return Optional.of(params);
    }

    private static Optional<String> percentDecoded(String latin1, Charset charset) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        for (int i = 0; i < latin1.length(); i++) {
            char c = latin1.charAt(i);
            if (c == '%') {
                if (i + 2 >= latin1.length()) {
                    return Optional.empty();
                }
                int high = Character.digit(latin1.charAt(i + 1), 16);
                int low = Character.digit(latin1.charAt(i + 2), 16);
                if (high < 0 || low < 0) {
                    return Optional.empty();
                }
                bytes.write(high << 4 | low);
                i += 2;
            } else {
                bytes.write(c == '+' ? ' ' : c);
            }
        }
        try {
            return Optional.of(charset.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes.toByteArray())).toString());
        } catch (CharacterCodingException e) {
            return Optional.empty();
        }
    }
}
