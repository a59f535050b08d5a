package io.paycallback.registry;

import io.paycallback.channel.CallbackKind;
import io.paycallback.channel.Channel;
import io.paycallback.channel.CallbackRequest;
import io.paycallback.channel.Channels;
import io.paycallback.channel.TestKeys;
import io.paycallback.channel.ChannelVerdict;
import io.paycallback.config.PayCallbackConfig;
import io.paycallback.provider.ProviderClients;
import io.paycallback.testsupport.ProviderSigner;
import io.paycallback.trade.ChannelId;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Channels built from properties through the providers' modules, as the registry serves them at start: what each
 * provider's channel serves, and every check a start makes, naming the key and never the value.
 */
class ServingTest {

    private static final ProviderClients.Context CONTEXT = new ProviderClients.Context(null, null, Clock.systemUTC(),
            Duration.ofSeconds(5), "http://127.0.0.1:9", "http://127.0.0.1:9", "http://127.0.0.1:9", null, null, null);


    private static final KeyPair KEYS = TestKeys.rsa();
    private static final String API_V3_KEY = "0123456789abcdefABCDEF0123456789";

    record Merchant(Optional<PayCallbackConfig.WxPay> wxpay, Optional<PayCallbackConfig.Alipay> alipay,
                    Optional<PayCallbackConfig.Stripe> stripe, Optional<PayCallbackConfig.StripeConnect> stripeConnect,
                    Optional<PayCallbackConfig.WxPayPartner> wxpayPartner, Optional<PayCallbackConfig.AlipayIsv> alipayIsv)
            implements PayCallbackConfig.Merchant {

        Merchant(Optional<PayCallbackConfig.WxPay> wxpay, Optional<PayCallbackConfig.Alipay> alipay,
                 Optional<PayCallbackConfig.Stripe> stripe) {
            this(wxpay, alipay, stripe, Optional.empty(), Optional.empty(), Optional.empty());
        }
    }

    record WxPay(String mchid, String apiV3Key, Map<String, String> publicKeys) implements PayCallbackConfig.WxPay {
        @Override
        public Optional<String> merchantSerial() {
            return Optional.empty();
        }

        @Override
        public Optional<String> merchantPrivateKey() {
            return Optional.empty();
        }

        @Override
        public boolean autoCertificates() {
            return false;
        }
    }

    record Alipay(String appId, String key) implements PayCallbackConfig.Alipay {
        @Override
        public Optional<String> publicKey() {
            return Optional.of(key);
        }

        @Override
        public Optional<String> appCertificate() {
            return Optional.empty();
        }

        @Override
        public Optional<String> alipayCertificate() {
            return Optional.empty();
        }

        @Override
        public Optional<String> alipayRootCertificate() {
            return Optional.empty();
        }

        @Override
        public Optional<String> appPrivateKey() {
            return Optional.empty();
        }
    }

    record Stripe(List<String> webhookSecrets) implements PayCallbackConfig.Stripe {
        @Override
        public Optional<String> apiKey() {
            return Optional.empty();
        }
    }

    private static Channels channels(Map<String, PayCallbackConfig.Merchant> merchants) {
        return channels(merchants, Map.of());
    }

    private static Channels channels(Map<String, PayCallbackConfig.Merchant> merchants,
                                     Map<String, PayCallbackConfig.Platform> platforms) {
        Serving.Built built = Serving.build(RegistryContent.fromConfiguration(merchants, platforms), Instant.now(),
                Clock.systemUTC(), CONTEXT, ParsedKeys.none());
        Channels channels = new Channels();
        channels.replace(built.channels());
        return channels;
    }

    private static Merchant wxpayOnly(String apiV3Key, String publicKey) {
        return new Merchant(Optional.of(new WxPay("1900000001", apiV3Key, Map.of("SERIAL-1", publicKey))), Optional.empty(), Optional.empty());
    }

    @Test
    void buildsEachChannelForTheMerchantsThatConfigureIt() {
        Channels channels = channels(Map.of(
                "default", new Merchant(
                        Optional.of(new WxPay("1900000001", API_V3_KEY, Map.of("SERIAL-1", TestKeys.pem(KEYS.getPublic()),
                                "PUB_KEY_ID_2", TestKeys.base64Der(KEYS.getPublic())))),
                        Optional.of(new Alipay("2021000000000001", TestKeys.base64Der(KEYS.getPublic()))),
                        Optional.of(new Stripe(List.of("whsec_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "whsec_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb")))),
                "shop2", new Merchant(Optional.empty(), Optional.empty(), Optional.of(new Stripe(List.of("whsec_cccccccccccccccccccccccccccccccc"))))));

        assertTrue(channels.get(ChannelId.WXPAY).serves("default"));
        assertTrue(channels.get(ChannelId.ALIPAY).serves("default"));
        assertTrue(channels.get(ChannelId.STRIPE).serves("default"));
        assertFalse(channels.get(ChannelId.WXPAY).serves("shop2"));
        assertFalse(channels.get(ChannelId.ALIPAY).serves("shop2"));
        assertTrue(channels.get(ChannelId.STRIPE).serves("shop2"));
        assertFalse(channels.get(ChannelId.STRIPE).serves("nobody"));
    }

    @Test
    void findsChannelsByPathSegment() {
        Channels channels = channels(Map.of());
        for (ChannelId id : ChannelId.values()) {
            assertEquals(id, channels.find(id.path()).orElseThrow().id());
            assertEquals(id, channels.get(id).id());
        }
        assertTrue(channels.find("paypal").isEmpty());
        assertTrue(channels.find("WXPAY").isEmpty());
    }

    @Test
    void badPublicKeyFailsStartupNamingTheKeyNotTheValue() {
        String value = "bm90LWEta2V5";
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> channels(Map.of("m1", wxpayOnly(API_V3_KEY, value))));
        assertTrue(e.getMessage().contains("paycallback.merchants.m1.wxpay.public-keys.SERIAL-1"), e.getMessage());
        assertFalse(e.getMessage().contains(value));

        IllegalArgumentException alipay = assertThrows(IllegalArgumentException.class, () -> channels(Map.of("m2",
                new Merchant(Optional.empty(), Optional.of(new Alipay("2021", "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----")), Optional.empty()))));
        assertTrue(alipay.getMessage().contains("paycallback.merchants.m2.alipay.public-key"), alipay.getMessage());
    }

    @Test
    void apiV3KeyMustBe32Bytes() {
        String shortKey = "0123456789abcdef0123456789abcde";
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> channels(Map.of("m1", wxpayOnly(shortKey, TestKeys.base64Der(KEYS.getPublic())))));
        assertEquals("paycallback.merchants.m1.wxpay: api-v3-key must be 32 bytes", e.getMessage());
        assertThrows(IllegalArgumentException.class,
                () -> channels(Map.of("m1", wxpayOnly("\u5bc6\u94a5".repeat(6), TestKeys.base64Der(KEYS.getPublic())))));
    }

    @Test
    void emptyStripeSecretFailsStartup() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> channels(Map.of("m1",
                new Merchant(Optional.empty(), Optional.empty(), Optional.of(new Stripe(List.of(" ")))))));
        assertTrue(e.getMessage().startsWith("paycallback.merchants.m1.stripe"), e.getMessage());
    }

    /** The template's placeholders, or anything else in a key's place, stop the start naming the key. */
    @Test
    void valuesThatAreNoProviderKeysFailStartup() {
        IllegalArgumentException stripe = assertThrows(IllegalArgumentException.class, () -> channels(Map.of("m1",
                new Merchant(Optional.empty(), Optional.empty(), Optional.of(new Stripe(List.of("REPLACE_ME")))))));
        assertTrue(stripe.getMessage().startsWith("paycallback.merchants.m1.stripe: webhook-secrets"), stripe.getMessage());
        IllegalArgumentException alipay = assertThrows(IllegalArgumentException.class, () -> channels(Map.of("m2",
                new Merchant(Optional.empty(), Optional.of(new Alipay("REPLACE_ME", TestKeys.base64Der(KEYS.getPublic()))),
                        Optional.empty()))));
        assertTrue(alipay.getMessage().startsWith("paycallback.merchants.m2.alipay: app-id"), alipay.getMessage());
        IllegalArgumentException wxpay = assertThrows(IllegalArgumentException.class, () -> channels(Map.of("m3",
                new Merchant(Optional.of(new WxPay("REPLACE_ME", API_V3_KEY, Map.of("SERIAL-1",
                        TestKeys.base64Der(KEYS.getPublic())))), Optional.empty(), Optional.empty()))));
        assertTrue(wxpay.getMessage().startsWith("paycallback.merchants.m3.wxpay: mchid"), wxpay.getMessage());
    }

    record Platform(Optional<PayCallbackConfig.Stripe> stripe, Optional<PayCallbackConfig.WxPay> wxpay,
                    Optional<PayCallbackConfig.Alipay> alipay)
            implements PayCallbackConfig.Platform {

        Platform(Optional<PayCallbackConfig.Stripe> stripe) {
            this(stripe, Optional.empty(), Optional.empty());
        }
    }

    record AlipayIsv(String platform, String authAppId, Optional<String> appAuthToken) implements PayCallbackConfig.AlipayIsv {
    }

    record StripeConnect(String platform, String account) implements PayCallbackConfig.StripeConnect {
    }

    record WxPayPartner(String platform, String subMchid) implements PayCallbackConfig.WxPayPartner {
    }

    private static final String CONNECT_SECRET = "whsec_dddddddddddddddddddddddddddddddd";

    private static Merchant connected(String platform, String account) {
        return new Merchant(Optional.empty(), Optional.empty(), Optional.empty(),
                Optional.of(new StripeConnect(platform, account)), Optional.empty(), Optional.empty());
    }

    private static Map<String, PayCallbackConfig.Platform> market() {
        return Map.of("market", new Platform(Optional.of(new Stripe(List.of(CONNECT_SECRET)))));
    }

    @Test
    void aConnectPlatformIsServedUnderItsIdAndEachConnectedAccountUnderItsMerchant() {
        Channels channels = channels(Map.of("shop-a", connected("market", "acct_1A"),
                "shop-b", connected("market", "acct_1B"),
                "default", new Merchant(Optional.empty(), Optional.empty(), Optional.of(new Stripe(List.of("whsec_cccccccccccccccccccccccccccccccc"))))),
                market());

        Channel stripe = channels.get(ChannelId.STRIPE);
        assertTrue(stripe.serves("market"));
        assertTrue(stripe.serves("shop-a"));
        assertTrue(stripe.serves("shop-b"));
        assertTrue(stripe.serves("default"));
        assertFalse(channels.get(ChannelId.WXPAY).serves("market"));
    }

    @Test
    void aSubMerchantOfAPlatformWithoutThoseKeysFailsStartup() {
        IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class, () -> channels(
                Map.of("shop-a", connected("nowhere", "acct_1A")), market()));
        assertEquals("paycallback.merchants.shop-a.stripe-connect.platform names 'nowhere', which has no"
                + " paycallback.platforms.nowhere.stripe", unknown.getMessage());
        IllegalArgumentException noStripe = assertThrows(IllegalArgumentException.class, () -> channels(
                Map.of("shop-a", connected("bare", "acct_1A")), Map.of("bare", new Platform(Optional.empty()))));
        assertTrue(noStripe.getMessage().startsWith("paycallback.merchants.shop-a.stripe-connect.platform"),
                noStripe.getMessage());
    }

    @Test
    void connectedAccountsAreCheckedAtStart() {
        IllegalArgumentException notAnAccount = assertThrows(IllegalArgumentException.class, () -> channels(
                Map.of("shop-a", connected("market", "REPLACE_ME")), market()));
        assertEquals("paycallback.merchants.shop-a.stripe-connect.account is not a Stripe account id (acct_...)",
                notAnAccount.getMessage());
        IllegalArgumentException twice = assertThrows(IllegalArgumentException.class, () -> channels(
                Map.of("shop-a", connected("market", "acct_1A"), "shop-b", connected("market", "acct_1A")),
                market()));
        assertEquals("paycallback.merchants.shop-b.stripe-connect.account is paycallback.merchants.shop-a"
                + ".stripe-connect.account too: the notices about it can belong to one merchant only", twice.getMessage());
        IllegalArgumentException both = assertThrows(IllegalArgumentException.class, () -> channels(
                Map.of("shop-a", new Merchant(Optional.empty(), Optional.empty(),
                        Optional.of(new Stripe(List.of(CONNECT_SECRET))), Optional.of(new StripeConnect("market", "acct_1A")),
                        Optional.empty(), Optional.empty())),
                market()));
        assertTrue(both.getMessage().startsWith("paycallback.merchants.shop-a.stripe and"), both.getMessage());
    }

    @Test
    void aPlatformIdIsNoMerchantId() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> channels(
                Map.of("market", connected("market", "acct_1A")), market()));
        assertTrue(e.getMessage().startsWith("paycallback.platforms.market and paycallback.merchants.market share an id"),
                e.getMessage());
    }

    private static Merchant partnered(String platform, String subMchid) {
        return new Merchant(Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(),
                Optional.of(new WxPayPartner(platform, subMchid)), Optional.empty());
    }

    private static Map<String, PayCallbackConfig.Platform> partner() {
        return Map.of("market", new Platform(Optional.empty(), Optional.of(new WxPay("1230000109", API_V3_KEY,
                Map.of("SERIAL-1", TestKeys.base64Der(KEYS.getPublic())))), Optional.empty()));
    }

    @Test
    void aWechatPartnerIsServedUnderItsIdAndEachSubMerchantUnderItsMerchant() {
        Channels channels = channels(Map.of("shop-a", partnered("market", "1900000201"),
                "shop-b", partnered("market", "1900000202")), partner());

        Channel wxpay = channels.get(ChannelId.WXPAY);
        assertTrue(wxpay.serves("market"));
        assertTrue(wxpay.serves("shop-a"));
        assertTrue(wxpay.serves("shop-b"));
        assertFalse(channels.get(ChannelId.STRIPE).serves("market"));
    }

    @Test
    void wechatSubMerchantsAreCheckedAtStart() {
        IllegalArgumentException noPartner = assertThrows(IllegalArgumentException.class, () -> channels(
                Map.of("shop-a", partnered("market", "1900000201")), market()));
        assertEquals("paycallback.merchants.shop-a.wxpay-partner.platform names 'market', which has no"
                + " paycallback.platforms.market.wxpay", noPartner.getMessage());
        IllegalArgumentException notANumber = assertThrows(IllegalArgumentException.class, () -> channels(
                Map.of("shop-a", partnered("market", "REPLACE_ME")), partner()));
        assertEquals("paycallback.merchants.shop-a.wxpay-partner.sub-mchid is not a WeChat Pay merchant number (digits only)",
                notANumber.getMessage());
        IllegalArgumentException twice = assertThrows(IllegalArgumentException.class, () -> channels(
                Map.of("shop-a", partnered("market", "1900000201"), "shop-b", partnered("market", "1900000201")),
                partner()));
        assertEquals("paycallback.merchants.shop-b.wxpay-partner.sub-mchid is paycallback.merchants.shop-a"
                + ".wxpay-partner.sub-mchid too: the notices about it can belong to one merchant only", twice.getMessage());
        IllegalArgumentException both = assertThrows(IllegalArgumentException.class, () -> channels(
                Map.of("shop-a", new Merchant(Optional.of(new WxPay("1900000001", API_V3_KEY,
                        Map.of("SERIAL-1", TestKeys.base64Der(KEYS.getPublic())))), Optional.empty(), Optional.empty(),
                        Optional.empty(), Optional.of(new WxPayPartner("market", "1900000201")), Optional.empty())),
                partner()));
        assertTrue(both.getMessage().startsWith("paycallback.merchants.shop-a.wxpay and"), both.getMessage());
        IllegalArgumentException badKey = assertThrows(IllegalArgumentException.class, () -> channels(Map.of(),
                Map.of("market", new Platform(Optional.empty(), Optional.of(new WxPay("1230000109", "short",
                        Map.of("SERIAL-1", TestKeys.base64Der(KEYS.getPublic())))), Optional.empty()))));
        assertEquals("paycallback.platforms.market.wxpay: api-v3-key must be 32 bytes", badKey.getMessage());
    }

    private static Merchant authorising(String platform, String authAppId) {
        return new Merchant(Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(),
                Optional.of(new AlipayIsv(platform, authAppId, Optional.empty())));
    }

    private static Map<String, PayCallbackConfig.Platform> isv() {
        return Map.of("market", new Platform(Optional.empty(), Optional.empty(),
                Optional.of(new Alipay("2021000000000099", TestKeys.base64Der(KEYS.getPublic())))));
    }

    @Test
    void anAlipayThirdPartyAppIsServedUnderItsIdAndEachAuthorisingMerchantUnderItsOwn() {
        Channels channels = channels(Map.of("shop-a", authorising("market", "2021000000000201")), isv());

        assertTrue(channels.get(ChannelId.ALIPAY).serves("market"));
        assertTrue(channels.get(ChannelId.ALIPAY).serves("shop-a"));
        assertFalse(channels.get(ChannelId.WXPAY).serves("shop-a"));
    }

    /**
     * A platform configured before any sub-merchant is a platform's endpoint all the same: what it receives is held
     * under its id until the sub-merchant it names is configured, never taken as the platform's own payment.
     */
    @Test
    void aPlatformWithNoSubMerchantYetHoldsItsNotices() {
        Map<String, PayCallbackConfig.Platform> bare = Map.of("market", new Platform(
                Optional.of(new Stripe(List.of(CONNECT_SECRET))),
                Optional.of(new WxPay("1230000109", API_V3_KEY, Map.of("SERIAL-1", TestKeys.base64Der(KEYS.getPublic())))),
                Optional.of(new Alipay("2021000000000099", TestKeys.base64Der(KEYS.getPublic())))));
        Channels channels = channels(Map.of(), bare);

        String event = """
                {"id":"evt_1","object":"event","account":"acct_1A","type":"payment_intent.succeeded","data":{"object":\
                {"id":"pi_1","object":"payment_intent","amount":100,"amount_received":100,"currency":"usd",\
                "status":"succeeded","metadata":{"out_trade_no":"ORDER-1"}}}}""";
        assertEquals(new ChannelVerdict.Malformed("the event's account is not a connected account configured for this platform"),
                stored(channels, "stripe", event));
        String trade = "app_id=2021000000000099&auth_app_id=2021000000000201&trade_status=TRADE_SUCCESS"
                + "&trade_no=2026010122001&out_trade_no=ORDER-1&total_amount=1.00&charset=utf-8";
        assertEquals(new ChannelVerdict.Malformed("auth_app_id is not a merchant app configured for this platform"),
                stored(channels, "alipay", trade));
        String subOrder = """
                {"mchid":"1230000109","sub_mchid":"1900000201","trade_state":"SUCCESS","transaction_id":"4200000001",\
                "out_trade_no":"ORDER-1","amount":{"total_amount":100,"currency":"CNY"}}""";
        String combine = "{\"combine_mchid\":\"1230000109\",\"combine_out_trade_no\":\"C-1\",\"sub_orders\":["
                + subOrder + "]}";
        assertEquals(new ChannelVerdict.Malformed("sub_mchid is not a sub-merchant configured for this partner"),
                stored(channels, "wxpay", encrypted(combine)));
        assertEquals(new ChannelVerdict.Malformed("missing sub_mchid"),
                stored(channels, "wxpay", encrypted(combine.replace("\"sub_mchid\":\"1900000201\",", ""))));
    }

    private static ChannelVerdict stored(Channels channels, String channel, String body) {
        return channels.parseStored(channel, "market", CallbackKind.PAYMENT, body.getBytes(StandardCharsets.UTF_8));
    }

    private static String encrypted(String plaintext) {
        String ciphertext = ProviderSigner.aesGcm(API_V3_KEY.getBytes(StandardCharsets.UTF_8), "n0nce4bytes1", "transaction",
                plaintext);
        return """
                {"id":"EV-1","resource":{"algorithm":"AEAD_AES_256_GCM","ciphertext":"%s","associated_data":"transaction",\
                "nonce":"n0nce4bytes1"}}""".formatted(ciphertext);
    }

    @Test
    void authorisingMerchantsAreCheckedAtStart() {
        IllegalArgumentException noApp = assertThrows(IllegalArgumentException.class, () -> channels(
                Map.of("shop-a", authorising("market", "2021000000000201")), market()));
        assertEquals("paycallback.merchants.shop-a.alipay-isv.platform names 'market', which has no"
                + " paycallback.platforms.market.alipay", noApp.getMessage());
        IllegalArgumentException notAnApp = assertThrows(IllegalArgumentException.class, () -> channels(
                Map.of("shop-a", authorising("market", "shop-a")), isv()));
        assertEquals("paycallback.merchants.shop-a.alipay-isv.auth-app-id is not an Alipay application id (digits only)",
                notAnApp.getMessage());
        IllegalArgumentException twice = assertThrows(IllegalArgumentException.class, () -> channels(
                Map.of("shop-a", authorising("market", "2021000000000201"), "shop-b", authorising("market", "2021000000000201")),
                isv()));
        assertTrue(twice.getMessage().startsWith("paycallback.merchants.shop-b.alipay-isv.auth-app-id is"), twice.getMessage());
    }
}
