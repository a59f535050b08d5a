package io.paycallback.testsupport;

import io.paycallback.channel.TestKeys;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;

import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.NoSuchAlgorithmException;
import java.security.PrivateKey;
import java.security.spec.InvalidKeySpecException;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;

/**
 * Keys generated for one test run, handed to the application as merchant configuration and to the tests (which sign
 * like the providers do) through config keys outside the application's {@code paycallback.} prefix.
 */
public record ProviderKeys(String wxMchid, String wxSerial, PrivateKey wxPrivate, String wxPublicDer,
                           String apiV3Key, String alipayAppId, PrivateKey alipayPrivate, String alipayPublicDer,
                           String stripeSecret, String stripeConnectSecret) {

    public static final String MERCHANT = "default";
    /**
     * The platform of {@link Platforms}: a Stripe Connect platform with two connected accounts, each the account of a
     * merchant of ours.
     */
    public static final String PLATFORM = "market";
    public static final String SHOP_A = "shop-a";
    public static final String SHOP_B = "shop-b";
    public static final String ACCOUNT_A = "acct_1ShopAAAAAAAAAAA";
    public static final String ACCOUNT_B = "acct_1ShopBBBBBBBBBBB";
    /**
     * The same platform as a WeChat Pay partner (服务商), the same two merchants its sub-merchants. It shares WeChat
     * Pay's signing key and the merchant API key with the direct merchant (one fake WeChat Pay knows both); its own
     * number and APIv3 key are its own.
     */
    public static final String WX_PARTNER_MCHID = "1230000109";
    public static final String WX_PARTNER_API_V3_KEY = "p9o8i7u6y5t4r3e2w1q0p9o8i7u6y5t4";
    public static final String SUB_MCHID_A = "1900000201";
    public static final String SUB_MCHID_B = "1900000202";
    /**
     * The same platform as an Alipay third-party application (第三方应用) the two merchants authorised: its own app id,
     * the direct merchant's app keys (one fake Alipay knows one), and a token per authorisation.
     */
    public static final String ALIPAY_ISV_APP_ID = "2021000000000099";
    public static final String AUTH_APP_A = "2021000000000201";
    public static final String AUTH_APP_B = "2021000000000202";
    public static final String APP_AUTH_TOKEN_A = "202612BBa1b2c3d4e5f6a7b8c9d0e1f2a3b4c5X07";
    public static final String APP_AUTH_TOKEN_B = "202612BBf6e5d4c3b2a1f0e9d8c7b6a5f4e3d2X07";
    public static final String WX_SERIAL = "PUB_KEY_ID_0114232134912410000000000000";
    /**
     * WeChat Pay's first platform certificate's serial, the certificate of the same key as {@link #WX_SERIAL}: for a
     * merchant that downloads certificates rather than pins the public key.
     */
    public static final String WX_CERTIFICATE_SERIAL = "3775B6A45ACD588826D15E583A95F5DD2B2F4A3C";
    private static final String PREFIX = "test.provider-keys.";

    public static ProviderKeys generate() {
        KeyPair wx = TestKeys.rsa();
        KeyPair alipay = TestKeys.rsa();
        return new ProviderKeys("1900000109", WX_SERIAL, wx.getPrivate(),
                der(wx.getPublic().getEncoded()), "a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6", "2021000000000001",
                alipay.getPrivate(), der(alipay.getPublic().getEncoded()), webhookSecret(), webhookSecret());
    }

    /** A fresh Stripe endpoint signing secret. */
    public static String webhookSecret() {
        return "whsec_" + Base64.getEncoder().encodeToString(TestKeys.rsa().getPublic().getEncoded()).substring(40, 72);
    }

    /** The application's merchant configuration, plus the private halves for the tests. */
    public Map<String, String> asConfig() {
        Map<String, String> config = new HashMap<>();
        String merchant = "paycallback.merchants." + MERCHANT + ".";
        config.put(merchant + "wxpay.mchid", wxMchid);
        config.put(merchant + "wxpay.api-v3-key", apiV3Key);
        config.put(merchant + "wxpay.public-keys.\"" + wxSerial + "\"", wxPublicDer);
        config.put(merchant + "alipay.app-id", alipayAppId);
        config.put(merchant + "alipay.public-key", alipayPublicDer);
        config.put(merchant + "stripe.webhook-secrets", stripeSecret);
        config.put(PREFIX + "stripe-connect-secret", stripeConnectSecret);
        config.put(PREFIX + "wx-private", der(wxPrivate.getEncoded()));
        config.put(PREFIX + "wx-public", wxPublicDer);
        config.put(PREFIX + "alipay-private", der(alipayPrivate.getEncoded()));
        config.put(PREFIX + "alipay-public", alipayPublicDer);
        return config;
    }

    /** The keys of the running application, as seen from inside a {@code @QuarkusTest}. */
    public static ProviderKeys fromConfig() {
        Config config = ConfigProvider.getConfig();
        String merchant = "paycallback.merchants." + MERCHANT + ".";
        return new ProviderKeys(
                config.getValue(merchant + "wxpay.mchid", String.class),
                WX_SERIAL,
                privateKey(config.getValue(PREFIX + "wx-private", String.class)),
                config.getValue(PREFIX + "wx-public", String.class),
                config.getValue(merchant + "wxpay.api-v3-key", String.class),
                config.getValue(merchant + "alipay.app-id", String.class),
                privateKey(config.getValue(PREFIX + "alipay-private", String.class)),
                config.getValue(PREFIX + "alipay-public", String.class),
                config.getValue(merchant + "stripe.webhook-secrets", String.class),
                config.getValue(PREFIX + "stripe-connect-secret", String.class));
    }

    private static String der(byte[] encoded) {
        return Base64.getEncoder().encodeToString(encoded);
    }

    private static PrivateKey privateKey(String base64Pkcs8) {
        try {
            return KeyFactory.getInstance("RSA").generatePrivate(new PKCS8EncodedKeySpec(Base64.getDecoder().decode(base64Pkcs8)));
        } catch (NoSuchAlgorithmException | InvalidKeySpecException e) {
            throw new IllegalStateException(e);
        }
    }
}
