package io.paycallback.delivery;

import io.paycallback.outbox.OutboxConfig;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.config.SslConfigs;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A Kafka destination's producer, from its settings: checked at start-up with messages that name the key (never a
 * secret's value), and turned into the producer's configuration. The delivery guarantees are fixed here, not
 * configurable: an idempotent producer with {@code acks=all}, so a broker's retry never writes a record twice and a
 * record is acknowledged only once every in-sync replica has it; at most five requests in flight per connection, which
 * the idempotent producer needs to keep one key's records in order through its own retries.
 *
 * @param topic    where the records go
 * @param endpoint how operators see it: brokers and topic, no credential
 * @param producer the producer's configuration as Kafka names and text values (the client parses each to its type),
 *                 secrets included; never logged
 */
public record KafkaProducerSettings(String topic, String endpoint, Map<String, String> producer) {

    private static final Pattern TOPIC = Pattern.compile("[a-zA-Z0-9._-]{1,249}");
    private static final Pattern BROKERS = Pattern.compile("[^\\s,:]+:\\d{1,5}(,[^\\s,:]+:\\d{1,5})*");
    private static final Set<String> PROTOCOLS = Set.of("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL");
    private static final Set<String> MECHANISMS = Set.of("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512", "OAUTHBEARER");
    static final String ALLOWED_URLS = "org.apache.kafka.sasl.oauthbearer.allowed.urls";
    /**
     * Records wait this long for others to the same partition, so a batch costs the broker one request; records sent
     * while a request is in flight batch anyway. At 5 ms each of a lane's records in flight waited out the linger:
     * against the HTTP destination in the same run, 0.57 × its events per second and 1.61 × its CPU per event; at 1 ms
     * 1.26 × and 0.83 × (docs/performance.md#kafka-destinations).
     */
    static final int LINGER_MILLIS = 1;
    /** Set from the typed settings or the guarantees; {@code properties} may not change them. */
    private static final Set<String> FIXED = Set.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, ProducerConfig.ACKS_CONFIG,
            ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION,
            ProducerConfig.RETRIES_CONFIG, ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG,
            ProducerConfig.MAX_BLOCK_MS_CONFIG, ProducerConfig.LINGER_MS_CONFIG, ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG,
            ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ProducerConfig.TRANSACTIONAL_ID_CONFIG,
            CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, SaslConfigs.SASL_MECHANISM, SaslConfigs.SASL_JAAS_CONFIG);

    @Override
    public String toString() {
        return "KafkaProducerSettings[" + endpoint + "]";
    }

    /**
     * @param name    the destination's name, for the client id and the messages
     * @param timeout how long a record may wait for its acknowledgement, retries included
     */
    public static KafkaProducerSettings of(String name, OutboxConfig.KafkaSettings kafka, Duration timeout) {
        String prefix = Destinations.PREFIX + name + ".kafka.";
        String brokers = kafka.bootstrapServers().trim();
        if (!BROKERS.matcher(brokers).matches()) {
            throw new IllegalArgumentException(prefix + "bootstrap-servers: host:port, comma-separated");
        }
        String topic = kafka.topic().trim();
        if (!TOPIC.matcher(topic).matches() || topic.equals(".") || topic.equals("..")) {
            throw new IllegalArgumentException(prefix + "topic: 1 to 249 of a-z A-Z 0-9 . _ -, not '" + topic + "'");
        }
        long timeoutMillis = timeout.toMillis();
        if (timeoutMillis < 1000) {
            throw new IllegalArgumentException(Destinations.PREFIX + name + ".timeout: at least 1s for a Kafka destination");
        }
        Map<String, String> producer = new HashMap<>();
        kafka.properties().forEach((key, value) -> {
            if (FIXED.contains(key)) {
                throw new IllegalArgumentException(prefix + "properties.\"" + key + "\" is set by pay-callback: "
                        + "use the typed setting, or leave the guarantee as it is");
            }
            producer.put(key, value);
        });
        producer.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, brokers);
        producer.put(ProducerConfig.CLIENT_ID_CONFIG, "pay-callback-" + name);
        producer.put(ProducerConfig.ACKS_CONFIG, "all");
        producer.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        producer.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "5");
        producer.put(ProducerConfig.RETRIES_CONFIG, Integer.toString(Integer.MAX_VALUE));
        producer.put(ProducerConfig.LINGER_MS_CONFIG, Integer.toString(LINGER_MILLIS));
        // The whole try, retries included, ends within the destination's timeout, as an HTTP try does; the producer
        // refuses a delivery timeout below linger plus request timeout.
        producer.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, Long.toString(timeoutMillis));
        producer.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, Long.toString(timeoutMillis - LINGER_MILLIS));
        // send() waits for the topic's metadata at most this long, on the destination's own sending thread.
        producer.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, Long.toString(timeoutMillis));
        producer.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        producer.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        security(prefix, kafka, producer);
        return new KafkaProducerSettings(topic, "kafka://" + brokers + "/" + topic, Map.copyOf(producer));
    }

    private static void security(String prefix, OutboxConfig.KafkaSettings kafka, Map<String, String> producer) {
        String protocol = kafka.securityProtocol().trim().toUpperCase(Locale.ROOT);
        if (!PROTOCOLS.contains(protocol)) {
            throw new IllegalArgumentException(prefix + "security-protocol: one of " + PROTOCOLS + ", not " + protocol);
        }
        producer.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, protocol);
        boolean sasl = protocol.startsWith("SASL_");
        Optional<String> mechanism = kafka.saslMechanism().map(value -> value.trim().toUpperCase(Locale.ROOT));
        if (sasl != mechanism.isPresent()) {
            throw new IllegalArgumentException(prefix + "sasl-mechanism: required with " + prefix
                    + "security-protocol SASL_PLAINTEXT or SASL_SSL, and only with them");
        }
        if (mechanism.isPresent()) {
            String chosen = mechanism.get();
            if (!MECHANISMS.contains(chosen)) {
                throw new IllegalArgumentException(prefix + "sasl-mechanism: one of " + MECHANISMS + ", not " + chosen);
            }
            producer.put(SaslConfigs.SASL_MECHANISM, chosen);
            producer.put(SaslConfigs.SASL_JAAS_CONFIG, chosen.equals("OAUTHBEARER") ? oauth(prefix, kafka, producer)
                    : password(prefix, kafka, chosen));
        }
        kafka.sslTruststoreLocation().ifPresent(location -> {
            producer.put(SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG, location);
            producer.put(SslConfigs.SSL_TRUSTSTORE_TYPE_CONFIG, storeType(location));
        });
        kafka.sslTruststorePassword().ifPresent(secret -> producer.put(SslConfigs.SSL_TRUSTSTORE_PASSWORD_CONFIG, secret));
        kafka.sslKeystoreLocation().ifPresent(location -> {
            producer.put(SslConfigs.SSL_KEYSTORE_LOCATION_CONFIG, location);
            producer.put(SslConfigs.SSL_KEYSTORE_TYPE_CONFIG, storeType(location));
        });
        kafka.sslKeystorePassword().ifPresent(secret -> producer.put(SslConfigs.SSL_KEYSTORE_PASSWORD_CONFIG, secret));
    }

    private static String password(String prefix, OutboxConfig.KafkaSettings kafka, String mechanism) {
        String user = kafka.saslUsername().orElseThrow(() -> new IllegalArgumentException(
                prefix + "sasl-username is required with " + mechanism));
        String secret = kafka.saslPassword().orElseThrow(() -> new IllegalArgumentException(
                prefix + "sasl-password is required with " + mechanism));
        String module = mechanism.equals("PLAIN") ? "org.apache.kafka.common.security.plain.PlainLoginModule"
                : "org.apache.kafka.common.security.scram.ScramLoginModule";
        return module + " required username=\"" + jaasQuoted(user) + "\" password=\"" + jaasQuoted(secret) + "\";";
    }

    private static String oauth(String prefix, OutboxConfig.KafkaSettings kafka, Map<String, String> producer) {
        String endpoint = kafka.oauthTokenEndpointUrl().orElseThrow(() -> new IllegalArgumentException(
                prefix + "oauth-token-endpoint-url is required with OAUTHBEARER"));
        String client = kafka.oauthClientId().orElseThrow(() -> new IllegalArgumentException(
                prefix + "oauth-client-id is required with OAUTHBEARER"));
        String secret = kafka.oauthClientSecret().orElseThrow(() -> new IllegalArgumentException(
                prefix + "oauth-client-secret is required with OAUTHBEARER"));
        // Kafka 4 calls no token endpoint the JVM was not told to allow; say so at start, not at the first try.
        List<String> allowed = Arrays.stream(System.getProperty(ALLOWED_URLS, "").split(",")).map(String::trim).toList();
        if (!allowed.contains(endpoint)) {
            throw new IllegalArgumentException(prefix + "oauth-token-endpoint-url: add it to the JVM's -D" + ALLOWED_URLS
                    + " (JAVA_OPTS_APPEND), which the Kafka client requires of every token endpoint it calls");
        }
        producer.put(SaslConfigs.SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL, endpoint);
        producer.put(SaslConfigs.SASL_LOGIN_CALLBACK_HANDLER_CLASS,
                "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler");
        return "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required clientId=\""
                + jaasQuoted(client) + "\" clientSecret=\"" + jaasQuoted(secret) + "\""
                + kafka.oauthScope().map(scope -> " scope=\"" + jaasQuoted(scope) + "\"").orElse("") + ";";
    }

    /** The JAAS parser reads a quoted value up to the next unescaped quote. */
    private static String jaasQuoted(String value) {
        return value.replace("\\", "\\\\").replace("\"", "\\\"");
    }

    private static String storeType(String location) {
        String lower = location.toLowerCase(Locale.ROOT);
        return lower.endsWith(".pem") || lower.endsWith(".crt") ? "PEM" : lower.endsWith(".jks") ? "JKS" : "PKCS12";
    }
}
