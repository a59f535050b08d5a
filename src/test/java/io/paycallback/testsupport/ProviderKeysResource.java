package io.paycallback.testsupport;

import io.paycallback.channel.TestKeys;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;

import java.security.KeyPair;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;

/**
 * Gives every {@code @QuarkusTest} application freshly generated merchant keys, and fake provider APIs on loopback
 * that know the other half of each key (they verify our requests and sign their answers like the providers).
 */
public class ProviderKeysResource implements QuarkusTestResourceLifecycleManager {

    static final String WX_MERCHANT_SERIAL = "5157F09EFDC096DE15EBE81A47057A7232F1B8E1";
    /** Longer than the clients' timeout in the test profile: an answer that comes this late is lost. */
    private static final long LOST_ANSWER_DELAY_MILLIS = 3500;

    private FakeProviders fakes;

    @Override
    public Map<String, String> start() {
        ProviderKeys keys = ProviderKeys.generate();
        Map<String, String> config = new HashMap<>(keys.asConfig());
        config.putAll(startFakes(keys, 0));
        config.putAll(alipayCertificates());
        return config;
    }

    /**
     * The fake Alipay's certificates of public-key certificate mode, PEM, as {@code test.fake-providers.alipay-*}: what
     * an app in that mode is configured with (texts of several lines, so not among {@link #startFakes}'s options).
     */
    public Map<String, String> alipayCertificates() {
        return fakes.alipayCertificateConfig();
    }

    /**
     * Starts the fake providers for {@code keys} (the providers' halves) with fresh merchant API keys, and answers what
     * the application needs besides {@link ProviderKeys#asConfig()}: the merchant's API keys and the providers' URLs,
     * plus {@code test.fake-providers.base-url}. Also how the bench's bill server and the sandbox (other processes)
     * start them; {@code port} 0 takes any free port.
     */
    public Map<String, String> startFakes(ProviderKeys keys, int port) {
        KeyPair wxMerchant = TestKeys.rsa();
        KeyPair alipayApp = TestKeys.rsa();
        String stripeApiKey = "sk_test_" + Long.toHexString(Double.doubleToLongBits(Math.random()));
        fakes = new FakeProviders(keys, wxMerchant.getPublic(), WX_MERCHANT_SERIAL, alipayApp.getPublic(), stripeApiKey,
                LOST_ANSWER_DELAY_MILLIS);
        String base = fakes.start(port);
        Map<String, String> config = new HashMap<>();
        String merchant = "paycallback.merchants." + ProviderKeys.MERCHANT + ".";
        config.put(merchant + "wxpay.merchant-serial", WX_MERCHANT_SERIAL);
        config.put(merchant + "wxpay.merchant-private-key", der(wxMerchant.getPrivate().getEncoded()));
        config.put(merchant + "alipay.app-private-key", der(alipayApp.getPrivate().getEncoded()));
        config.put(merchant + "stripe.api-key", stripeApiKey);
        config.put("paycallback.providers.wxpay.base-url", base + "/wx");
        config.put("paycallback.providers.alipay.gateway-url", base + "/alipay/gateway.do");
        config.put("paycallback.providers.stripe.base-url", base + "/stripe");
        config.put("test.fake-providers.base-url", base);
        return config;
    }

    private static String der(byte[] encoded) {
        return Base64.getEncoder().encodeToString(encoded);
    }

    @Override
    public void stop() {
        if (fakes != null) {
            fakes.stop();
        }
    }
}
