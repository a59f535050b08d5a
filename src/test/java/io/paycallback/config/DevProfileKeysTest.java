package io.paycallback.config;

import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.net.URL;
import java.util.List;
import java.util.stream.StreamSupport;

import static org.assertj.core.api.Assertions.assertThat;

/** The demo keys of deploy/dev/SendSample.java are trusted in dev mode and by no other profile. */
class DevProfileKeysTest {

    private static final String DEFAULT_MERCHANT = "paycallback.merchants.default.";

    @Test
    void devModeTrustsTheDemoKeysOfEveryProvider() throws IOException {
        List<String> keys = merchantKeys("dev");
        assertThat(keys).contains(DEFAULT_MERCHANT + "wxpay.mchid", DEFAULT_MERCHANT + "wxpay.api-v3-key",
                DEFAULT_MERCHANT + "alipay.app-id", DEFAULT_MERCHANT + "alipay.public-key",
                DEFAULT_MERCHANT + "stripe.webhook-secrets");
        assertThat(keys).anyMatch(key -> key.startsWith(DEFAULT_MERCHANT + "wxpay.public-keys."));
    }

    @ParameterizedTest
    @ValueSource(strings = {"prod", "test"})
    void noOtherProfileGetsAMerchantKeyFromTheApplication(String profile) throws IOException {
        assertThat(merchantKeys(profile)).isEmpty();
    }

    private static List<String> merchantKeys(String profile) throws IOException {
        URL properties = DevProfileKeysTest.class.getClassLoader().getResource("application.properties");
        SmallRyeConfig config = new SmallRyeConfigBuilder()
                .withProfile(profile)
                .withSources(new PropertiesConfigSource(properties))
                .build();
        return StreamSupport.stream(config.getPropertyNames().spliterator(), false)
                .filter(name -> name.startsWith("paycallback.merchants."))
                .toList();
    }
}
