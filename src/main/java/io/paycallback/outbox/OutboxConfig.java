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

    interface DestinationSettings {
        String url();

        /** Event types delivered to this destination. */
        List<String> events();

        @WithDefault("5s")
        @WithName("timeout")
        Duration timeout();

        /** Requests in flight at once to this destination, on each instance. */
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
}
