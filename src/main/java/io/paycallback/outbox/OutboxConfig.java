package io.paycallback.outbox;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import io.smallrye.config.WithName;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * The destinations of downstream events: the outbox writes one row per destination that takes an event's type, and
 * the relay (delivery) sends them. Their schedule and circuits are delivery's own ({@code delivery/DeliveryConfig}).
 */
@ConfigMapping(prefix = "paycallback.downstream")
public interface OutboxConfig {

    Map<String, DestinationSettings> destinations();

    /**
     * How far ahead a parked event is due; while its destination takes nothing it is pushed on before then. A
     * release without circuits (after a rollback) delivers it once this has passed.
     */
    @WithName("breaker.parked-for")
    @WithDefault("1h")
    Duration parkedFor();

    /** A destination is either an HTTP endpoint ({@code url}) or a Kafka topic ({@code kafka.*}), never both. */
    interface DestinationSettings {
        /** Where events are POSTed; absent for a Kafka destination. */
        Optional<String> url();

        /** The topic events are published to; absent for an HTTP destination. */
        Optional<KafkaSettings> kafka();

        /** Event types delivered to this destination. */
        List<String> events();

        /** How long a try may take: an HTTP answer, or the brokers' acknowledgement of a Kafka record. */
        @WithDefault("5s")
        @WithName("timeout")
        Duration timeout();

        /** Requests (or unacknowledged Kafka records) in flight at once to this destination, on each instance. */
        @WithDefault("8")
        int concurrency();

        /** Standard Webhooks signing secret, {@code whsec_} + base64 of 24 to 64 random bytes; absent: unsigned. */
        Optional<String> signingSecret();

        /** The secret before the current one: while it is valid, every event is signed with both. */
        Optional<String> previousSigningSecret();

        /** When the previous secret stops being used, an ISO-8601 instant ({@code 2027-01-31T00:00:00Z}). */
        Optional<String> previousSigningSecretExpiresAt();

        /** Events per second sent to this destination, on each instance; absent: no limit. */
        OptionalDouble rateLimit();
    }

    /**
     * A Kafka destination: the brokers, the topic, and the client security a real cluster needs. The producer is
     * idempotent with {@code acks=all} whatever is set here (delivery/KafkaProducerSettings).
     */
    interface KafkaSettings {
        /** {@code host:port[,host:port...]}. */
        String bootstrapServers();

        String topic();

        /** PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL. */
        @WithDefault("PLAINTEXT")
        String securityProtocol();

        /** PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 or OAUTHBEARER; required with a SASL protocol. */
        Optional<String> saslMechanism();

        /** For PLAIN and SCRAM. */
        Optional<String> saslUsername();

        Optional<String> saslPassword();

        /** For OAUTHBEARER: the identity provider's token endpoint, and this client's credentials there. */
        Optional<String> oauthTokenEndpointUrl();

        Optional<String> oauthClientId();

        Optional<String> oauthClientSecret();

        Optional<String> oauthScope();

        /** A trust store for brokers whose certificates the JVM's default trust store does not cover (PKCS12 or PEM). */
        Optional<String> sslTruststoreLocation();

        Optional<String> sslTruststorePassword();

        /** A key store for brokers that want a client certificate (mutual TLS). */
        Optional<String> sslKeystoreLocation();

        Optional<String> sslKeystorePassword();

        /**
         * Any other producer setting by its Kafka name, e.g. {@code properties."compression.type"=lz4}; the settings
         * above and the delivery guarantees ({@code acks}, {@code enable.idempotence}, timeouts) cannot be overridden.
         */
        Map<String, String> properties();
    }
}
