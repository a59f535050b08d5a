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
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Alipay's public-key certificate mode as properties declare it, a row stores it and an operator writes it. */
class AlipayCertificateModeKeysTest {

    private static final String SHOP = "paycallback.merchants.shop.alipay.";
    private final AlipayModule module = new AlipayModule();
    private final AlipayModule.Certificates certificates = new AlipayModule.Certificates("APP PEM", "ALIPAY PEM", "ROOT PEM");

    private static AccountRequest request(String publicKey, String app, String alipay, String root) {
        return new AccountRequest(null, null, null, null, null, null, null, null, null, null, "2021000000000001", publicKey,
                app, alipay, root, null, null, null);
    }

    @Test
    void propertiesDeclareTheThreeCertificates() {
        SmallRyeConfig config = new SmallRyeConfigBuilder()
                .withMapping(PayCallbackConfig.class)
                .withSources(new PropertiesConfigSource(Map.of(SHOP + "app-id", "2021000000000001",
                        SHOP + "app-certificate", "APP PEM", SHOP + "alipay-certificate", "ALIPAY PEM",
                        SHOP + "alipay-root-certificate", "ROOT PEM"), "test", 100))
                .build();

        AlipayModule.Keys keys = module.direct(config.getConfigMapping(PayCallbackConfig.class).merchants().get("shop"))
                .orElseThrow();

        assertThat(keys.publicKey()).isEmpty();
        assertThat(keys.certificates()).contains(certificates);
    }

    @Test
    void aRowKeepsTheCertificates() {
        AlipayModule.Keys keys = new AlipayModule.Keys("2021000000000001", Optional.empty(), Optional.of(certificates),
                Optional.of("MIIEvQ..."));
        ObjectNode settings = new ObjectMapper().createObjectNode();
        ObjectNode secrets = new ObjectMapper().createObjectNode();

        module.write(keys, settings, secrets);

        assertThat(module.read(settings, secrets)).isEqualTo(keys);
    }

    @Test
    void anOperatorMovesAnAccountFromOneModeToTheOther() {
        AlipayModule.Keys certified = module.fromRequest(request(null, "APP PEM", "ALIPAY PEM", "ROOT PEM"), Optional.empty());
        AlipayModule.Keys renewed = module.fromRequest(request(null, null, "NEW ALIPAY PEM", null), Optional.of(certified));
        AlipayModule.Keys byKey = module.fromRequest(request("MIIBIj...", null, null, null), Optional.of(renewed));

        assertThat(certified.certificates()).contains(certificates);
        assertThat(renewed.certificates()).contains(new AlipayModule.Certificates("APP PEM", "NEW ALIPAY PEM", "ROOT PEM"));
        assertThat(byKey.publicKey()).contains("MIIBIj...");
        assertThat(byKey.certificates()).isEmpty();
        assertThatThrownBy(() -> module.fromRequest(request("MIIBIj...", "APP PEM", null, null), Optional.empty()))
                .hasMessage("publicKey is public-key mode, the certificates certificate mode: give one");
        assertThatThrownBy(() -> module.fromRequest(request(null, "APP PEM", null, null), Optional.empty()))
                .hasMessage("alipayCertificate is required");
    }
}
