package io.paycallback.registry;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.paycallback.config.PayCallbackConfig;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/** Certificate mode as properties declare it and as a registry row stores it: the same keys either way. */
class WxPayCertificateModeKeysTest {

    private static final String MERCHANT = "paycallback.merchants.";
    private final WxPayModule module = new WxPayModule();

    private static PayCallbackConfig config(Map<String, String> properties) {
        SmallRyeConfig config = new SmallRyeConfigBuilder()
                .withMapping(PayCallbackConfig.class)
                .withSources(new PropertiesConfigSource(properties, "test", 100))
                .build();
        return config.getConfigMapping(PayCallbackConfig.class);
    }

    @Test
    void aMerchantWithApiKeysAndNoPublicKeyIsDeclaredInProperties() {
        PayCallbackConfig config = config(Map.of(
                MERCHANT + "shop.wxpay.mchid", "1900000109",
                MERCHANT + "shop.wxpay.api-v3-key", "a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6",
                MERCHANT + "shop.wxpay.merchant-serial", "5157F09EFDC096DE15EBE81A47057A7232F1B8E1",
                MERCHANT + "shop.wxpay.merchant-private-key", "MIIEvQ...",
                MERCHANT + "both.wxpay.mchid", "1900000110",
                MERCHANT + "both.wxpay.api-v3-key", "a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6",
                MERCHANT + "both.wxpay.public-keys.\"PUB_KEY_ID_0114232134912410000000000000\"", "MIIBIj...",
                MERCHANT + "both.wxpay.auto-certificates", "true"));

        WxPayModule.Keys shop = module.direct(config.merchants().get("shop")).orElseThrow();
        WxPayModule.Keys both = module.direct(config.merchants().get("both")).orElseThrow();

        assertThat(shop.publicKeys()).isEmpty();
        assertThat(shop.autoCertificates()).isFalse();
        assertThat(both.publicKeys()).extracting(RotatingKey::serial).containsExactly("PUB_KEY_ID_0114232134912410000000000000");
        assertThat(both.autoCertificates()).isTrue();
    }

    @Test
    void aRowKeepsAutoCertificates() {
        WxPayModule.Keys keys = new WxPayModule.Keys("1900000109", "a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6",
                java.util.List.of(new RotatingKey("PUB_KEY_ID_0114232134912410000000000000", "MIIBIj...", Optional.empty())),
                Optional.of("5157F09EFDC096DE15EBE81A47057A7232F1B8E1"), Optional.of("MIIEvQ..."), true);
        ObjectNode settings = new ObjectMapper().createObjectNode();
        ObjectNode secrets = new ObjectMapper().createObjectNode();

        module.write(keys, settings, secrets);

        assertThat(settings.path("autoCertificates").asBoolean()).isTrue();
        assertThat(module.read(settings, secrets)).isEqualTo(keys);
    }
}
