package io.paycallback.delivery;

import io.paycallback.lease.RetryPolicy;
import io.paycallback.outbox.OutboxConfig;
import io.quarkus.runtime.Startup;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Collection;
import java.util.Collections;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.TreeMap;

/**
 * The configured destinations and the delivery schedule, read once at start-up. A bad signing secret, rotation time,
 * schedule or breaker setting stops the start with a message naming its key (never a secret's value); a destination
 * without a secret is delivered unsigned, with a warning.
 */
@Startup
@ApplicationScoped
public class Destinations {

    private static final Logger LOG = Logger.getLogger(Destinations.class);
    static final String PREFIX = "paycallback.downstream.destinations.";

    /**
     * One destination as the relay sends to it.
     *
     * @param signer    empty: delivered unsigned
     * @param rateLimit events per second on this instance; empty: no limit
     */
    public record Destination(String name, Endpoint endpoint, Duration timeout, int concurrency,
                              Optional<WebhookSigner> signer, OptionalDouble rateLimit) {
    }

    /** Where a destination's events go. */
    public sealed interface Endpoint {
        /** How operators see it: nothing that may hold a credential. */
        String shown();
    }

    /** Each event is POSTed to {@code url}. */
    public record Http(String url) implements Endpoint {
        @Override
        public String shown() {
            return DestinationControls.endpoint(url);
        }
    }

    /** Each event is a record on a topic. */
    public record Kafka(KafkaProducerSettings settings) implements Endpoint {
        @Override
        public String shown() {
            return settings.endpoint();
        }
    }

    private final Map<String, Destination> byName;
    private final RetryPolicy schedule;
    private final Duration retryAfterCap;
    private final DeliveryConfig.Breaker breaker;

    public Destinations(OutboxConfig outbox, DeliveryConfig config) {
        Map<String, Destination> destinations = new TreeMap<>();
        outbox.destinations().forEach((name, settings) -> destinations.put(name, resolve(name, settings)));
        this.byName = Collections.unmodifiableMap(destinations);
        this.schedule = schedule(config.schedule());
        this.retryAfterCap = config.schedule().retryAfterCap();
        this.breaker = breaker(config.breaker());
    }

    private static Destination resolve(String name, OutboxConfig.DestinationSettings settings) {
        String prefix = PREFIX + name + ".";
        if (settings.concurrency() < 1) {
            throw new IllegalArgumentException(prefix + "concurrency: at least 1, not " + settings.concurrency());
        }
        if (settings.timeout().isNegative() || settings.timeout().isZero()) {
            throw new IllegalArgumentException(prefix + "timeout: must be positive");
        }
        if (settings.rateLimit().isPresent() && !(settings.rateLimit().getAsDouble() > 0)) {
            throw new IllegalArgumentException(prefix + "rate-limit: events per second, above 0");
        }
        Optional<WebhookSigner> signer = signer(prefix, settings);
        if (signer.isEmpty()) {
            LOG.warnf("Destination %s has no %ssigning-secret: its events are sent unsigned, and it cannot tell them "
                    + "from forged ones", name, prefix);
        }
        Endpoint endpoint = settings.kafka().<Endpoint>map(kafka -> new Kafka(KafkaProducerSettings.of(name, kafka,
                settings.timeout()))).orElseGet(() -> new Http(settings.url().orElseThrow()));
        return new Destination(name, endpoint, settings.timeout(), settings.concurrency(), signer, settings.rateLimit());
    }

    private static Optional<WebhookSigner> signer(String prefix, OutboxConfig.DestinationSettings settings) {
        Optional<SigningSecret> previous = settings.previousSigningSecret()
                .map(secret -> SigningSecret.parse(secret, prefix + "previous-signing-secret"));
        if (settings.signingSecret().isEmpty()) {
            if (previous.isPresent()) {
                throw new IllegalArgumentException(prefix + "previous-signing-secret is set without " + prefix
                        + "signing-secret");
            }
            return Optional.empty();
        }
        SigningSecret current = SigningSecret.parse(settings.signingSecret().get(), prefix + "signing-secret");
        Instant expires = Instant.MIN;
        if (previous.isPresent()) {
            String key = prefix + "previous-signing-secret-expires-at";
            String at = settings.previousSigningSecretExpiresAt().orElseThrow(() -> new IllegalArgumentException(
                    key + " is required with " + prefix + "previous-signing-secret: the old secret must stop signing"));
            try {
                expires = Instant.parse(at.trim());
            } catch (DateTimeParseException e) {
                throw new IllegalArgumentException(key + ": not an ISO-8601 instant such as 2027-01-31T00:00:00Z: " + at);
            }
        }
        return Optional.of(new WebhookSigner(current, previous, expires));
    }

    private static RetryPolicy schedule(DeliveryConfig.Schedule retry) {
        String prefix = "paycallback.downstream.retry.";
        if (retry.backoff().isEmpty() || retry.backoff().stream().anyMatch(delay -> delay.isNegative())) {
            throw new IllegalArgumentException(prefix + "backoff: at least one delay, none negative");
        }
        if (!(retry.jitter() >= 0 && retry.jitter() < 1)) {
            throw new IllegalArgumentException(prefix + "jitter: a fraction from 0 to below 1, not " + retry.jitter());
        }
        if (retry.retryAfterCap().isNegative()) {
            throw new IllegalArgumentException(prefix + "retry-after-cap: must not be negative");
        }
        return new RetryPolicy(retry.backoff(), retry.jitter());
    }

    private static DeliveryConfig.Breaker breaker(DeliveryConfig.Breaker breaker) {
        String prefix = "paycallback.downstream.breaker.";
        if (breaker.minTries() < 1) {
            throw new IllegalArgumentException(prefix + "min-tries: at least 1, not " + breaker.minTries());
        }
        if (!(breaker.failureRatio() > 0 && breaker.failureRatio() <= 1)) {
            throw new IllegalArgumentException(prefix + "failure-ratio: a fraction above 0 and at most 1, not "
                    + breaker.failureRatio());
        }
        for (Map.Entry<String, Duration> duration : Map.of("window", breaker.window(), "probe-interval",
                breaker.probeInterval(), "disable-after", breaker.disableAfter()).entrySet()) {
            if (duration.getValue().isNegative() || duration.getValue().isZero()) {
                throw new IllegalArgumentException(prefix + duration.getKey() + ": must be positive");
            }
        }
        return breaker;
    }

    public Optional<Destination> get(String name) {
        return Optional.ofNullable(byName.get(name));
    }

    /** Every configured destination, by name. */
    public Collection<Destination> all() {
        return byName.values();
    }

    /** The delivery schedule of events: the backoff with its jitter. */
    public RetryPolicy schedule() {
        return schedule;
    }

    /** The longest wait a Retry-After can impose. */
    public Duration retryAfterCap() {
        return retryAfterCap;
    }

    public DeliveryConfig.Breaker breaker() {
        return breaker;
    }
}
