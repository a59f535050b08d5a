package io.paycallback.delivery;

import io.paycallback.outbox.OutboxConfig;
import io.paycallback.testsupport.ConfigStub;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A Kafka destination's settings: the guarantees it always gets, the security it is given, what the start refuses. */
class KafkaProducerSettingsTest {

    private static final String KEY = "paycallback.downstream.destinations.bus.kafka.";

    @AfterEach
    void forgetAllowedUrls() {
        System.clearProperty(KafkaProducerSettings.ALLOWED_URLS);
    }

    @Test
    void theProducerIsIdempotentWithAcksAllAndAnswersWithinTheDestinationsTimeout() {
        KafkaProducerSettings settings = KafkaProducerSettings.of("bus", kafka(Map.of()), Duration.ofSeconds(5));

        assertThat(settings.topic()).isEqualTo("payments");
        assertThat(settings.endpoint()).isEqualTo("kafka://b1:9092,b2:9092/payments");
        assertThat(settings.producer()).containsEntry("acks", "all").containsEntry("enable.idempotence", "true")
                .containsEntry("max.in.flight.requests.per.connection", "5").containsEntry("delivery.timeout.ms", "5000")
                .containsEntry("request.timeout.ms", Integer.toString(5000 - KafkaProducerSettings.LINGER_MILLIS))
                .containsEntry("max.block.ms", "5000").containsEntry("security.protocol", "PLAINTEXT")
                .containsEntry("client.id", "pay-callback-bus").doesNotContainKey("transactional.id");
    }

    @Test
    void scramBuildsItsLoginFromUserAndPasswordQuotedAndNeverShowsThem() {
        KafkaProducerSettings settings = KafkaProducerSettings.of("bus", kafka(Map.of("securityProtocol", "SASL_SSL",
                "saslMechanism", Optional.of("scram-sha-512"), "saslUsername", Optional.of("pay"),
                "saslPassword", Optional.of("se\"cret"), "sslTruststoreLocation", Optional.of("/etc/kafka/ca.pem"))),
                Duration.ofSeconds(5));

        assertThat(settings.producer()).containsEntry("sasl.mechanism", "SCRAM-SHA-512")
                .containsEntry("sasl.jaas.config", "org.apache.kafka.common.security.scram.ScramLoginModule required "
                        + "username=\"pay\" password=\"se\\\"cret\";")
                .containsEntry("ssl.truststore.location", "/etc/kafka/ca.pem").containsEntry("ssl.truststore.type", "PEM");
        assertThat(settings.toString()).doesNotContain("cret").contains("kafka://b1:9092,b2:9092/payments");
    }

    @Test
    void oauthNeedsItsEndpointAllowedByTheJvmAndItsClientCredentials() {
        Map<String, Object> oauth = Map.of("securityProtocol", "SASL_SSL", "saslMechanism", Optional.of("OAUTHBEARER"),
                "oauthTokenEndpointUrl", Optional.of("https://idp/token"), "oauthClientId", Optional.of("pay"),
                "oauthClientSecret", Optional.of("s3"), "oauthScope", Optional.of("kafka"));
        assertThatThrownBy(() -> KafkaProducerSettings.of("bus", kafka(oauth), Duration.ofSeconds(5)))
                .hasMessageContaining(KEY + "oauth-token-endpoint-url").hasMessageContaining(KafkaProducerSettings.ALLOWED_URLS);

        System.setProperty(KafkaProducerSettings.ALLOWED_URLS, "https://other/token, https://idp/token");
        KafkaProducerSettings settings = KafkaProducerSettings.of("bus", kafka(oauth), Duration.ofSeconds(5));
        assertThat(settings.producer()).containsEntry("sasl.oauthbearer.token.endpoint.url", "https://idp/token")
                .containsEntry("sasl.jaas.config", "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule "
                        + "required clientId=\"pay\" clientSecret=\"s3\" scope=\"kafka\";");
    }

    @Test
    void whatTheStartRefusesIsNamedByItsKey() {
        assertThatThrownBy(() -> KafkaProducerSettings.of("bus", kafka(Map.of("topic", "no spaces")), Duration.ofSeconds(5)))
                .hasMessageStartingWith(KEY + "topic");
        assertThatThrownBy(() -> KafkaProducerSettings.of("bus", kafka(Map.of("bootstrapServers", "b1")), Duration.ofSeconds(5)))
                .hasMessageStartingWith(KEY + "bootstrap-servers");
        assertThatThrownBy(() -> KafkaProducerSettings.of("bus", kafka(Map.of("securityProtocol", "SASL_SSL")), Duration.ofSeconds(5)))
                .hasMessageStartingWith(KEY + "sasl-mechanism");
        assertThatThrownBy(() -> KafkaProducerSettings.of("bus", kafka(Map.of("saslMechanism", Optional.of("PLAIN"))),
                Duration.ofSeconds(5))).hasMessageStartingWith(KEY + "sasl-mechanism");
        assertThatThrownBy(() -> KafkaProducerSettings.of("bus", kafka(Map.of("securityProtocol", "SASL_PLAINTEXT",
                "saslMechanism", Optional.of("SCRAM-SHA-256"), "saslUsername", Optional.of("pay"))), Duration.ofSeconds(5)))
                .hasMessageStartingWith(KEY + "sasl-password");
        assertThatThrownBy(() -> KafkaProducerSettings.of("bus", kafka(Map.of("properties", Map.of("acks", "1"))),
                Duration.ofSeconds(5))).hasMessageStartingWith(KEY + "properties.\"acks\"");
        assertThatThrownBy(() -> KafkaProducerSettings.of("bus", kafka(Map.of()), Duration.ofMillis(500)))
                .hasMessageContaining("paycallback.downstream.destinations.bus.timeout");
    }

    @Test
    void otherProducerSettingsPassThrough() {
        KafkaProducerSettings settings = KafkaProducerSettings.of("bus", kafka(Map.of("properties",
                Map.of("compression.type", "lz4"))), Duration.ofSeconds(5));
        assertThat(settings.producer()).containsEntry("compression.type", "lz4");
    }

    private static OutboxConfig.KafkaSettings kafka(Map<String, Object> overrides) {
        Map<String, Object> answers = new HashMap<>();
        answers.put("bootstrapServers", "b1:9092,b2:9092");
        answers.put("topic", "payments");
        answers.put("securityProtocol", "PLAINTEXT");
        for (String optional : new String[] {"saslMechanism", "saslUsername", "saslPassword", "oauthTokenEndpointUrl",
                "oauthClientId", "oauthClientSecret", "oauthScope", "sslTruststoreLocation", "sslTruststorePassword",
                "sslKeystoreLocation", "sslKeystorePassword"}) {
            answers.put(optional, Optional.empty());
        }
        answers.put("properties", Map.of());
        answers.putAll(overrides);
        return ConfigStub.of(OutboxConfig.KafkaSettings.class, answers);
    }
}
