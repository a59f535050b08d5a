package io.paycallback.fault;

import io.paycallback.testsupport.FreePorts;
import io.paycallback.testsupport.ProviderKeys;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalInt;
import java.util.UUID;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Bad configuration stops the start of the packaged application, with a line naming the key: each case starts it on
 * a working configuration with one setting spoiled, on a database of the tier's own, and expects the process to end by
 * itself with its log naming the key, never to report ready.
 */
class ConfigurationFaultIT {

    private static final Path DIR = Path.of("target", "fault-configuration").toAbsolutePath();
    private static final String TOKEN = "configuration-order-service-" + UUID.randomUUID();
    private static final Duration START = Duration.ofSeconds(90);

    private static MariaDbServer database;
    private static FailingSink sink;
    private static ProviderKeys keys;

    @BeforeAll
    static void start() throws Exception {
        database = Tier.freshDatabase(DIR);
        sink = new FailingSink(FreePorts.next());
        keys = ProviderKeys.generate();
    }

    @AfterAll
    static void stop() throws Exception {
        Tier.closeAll(sink, database);
    }

    static Stream<Arguments> spoiled() {
        String merchant = "paycallback.merchants." + ProviderKeys.MERCHANT + ".";
        return Stream.of(
                Arguments.of("a token shared by two callers", Map.of("paycallback.auth.operators.tokens.alice", TOKEN),
                        "paycallback.auth.operators.tokens.alice has the same token as"),
                Arguments.of("an operator token of 11 characters",
                        Map.of("paycallback.auth.operators.tokens.bob", "short-token"),
                        "paycallback.auth.operators.tokens.bob is shorter than 16 characters"),
                Arguments.of("the Stripe secret left as the template's placeholder",
                        Map.of(merchant + "stripe.webhook-secrets", "REPLACE_ME"), merchant + "stripe: webhook-secrets"),
                Arguments.of("a key serial left as the template's placeholder",
                        Map.of(merchant + "wxpay.public-keys.REPLACE_ME_SERIAL", keys.wxPublicDer()),
                        merchant + "wxpay.public-keys.REPLACE_ME_SERIAL still hold the placeholder REPLACE_ME"),
                Arguments.of("an Alipay app id that is not one", Map.of(merchant + "alipay.app-id", "my-shop"),
                        merchant + "alipay: app-id"),
                Arguments.of("a destination that is not HTTP",
                        Map.of("paycallback.downstream.destinations.sink.url", "ftp://warehouse.example/in"),
                        "paycallback.downstream.destinations.sink.url is not an http:// or https:// URL"),
                Arguments.of("an event type nobody emits",
                        Map.of("paycallback.downstream.destinations.sink.events", "order.paid,order.shipped"),
                        "paycallback.downstream.destinations.sink.events: unknown event type 'order.shipped'"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("spoiled")
    void stopsTheStartNamingTheKey(String what, Map<String, String> setting, String line) throws Exception {
        Map<String, String> config = new HashMap<>(ServiceInstance.tierConfig(keys,
                "127.0.0.1:" + database.port() + "/" + MariaDbServer.DATABASE, "configuration", sink, TOKEN));
        config.putAll(setting);
        String name = what.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "-");
        try (ServiceInstance instance = new ServiceInstance(name, DIR.resolve(name), FreePorts.next(), FreePorts.next(),
                config)) {
            instance.start();
            OptionalInt exit = instance.awaitExit(START);
            assertThat(exit).as(what + ": the start ended by itself").isPresent();
            assertThat(exit.getAsInt()).as(what + ": exit code").isNotZero();
            assertThat(instance.log()).as(what).contains(line);
        }
    }
}
