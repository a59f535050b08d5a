package io.paycallback.auth;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.mutiny.core.Vertx;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.Clock;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Slows down guessing: console token logins and bearer tokens or API keys that fail are counted per source address
 * and per API key prefix ({@link Backoff}), and once a key has failed too often its requests are refused with 429 and
 * {@code Retry-After} before any token is looked at. Only callers that present a credential get here: provider
 * callbacks never do. Counted in {@code paycallback_auth_failures_total{kind}} and
 * {@code paycallback_auth_throttled_total{kind}}.
 */
@ApplicationScoped
public class LoginThrottle {

    /** What was presented. */
    public enum Kind {
        BEARER("bearer"), API_KEY("api-key"), CONSOLE_LOGIN("console-login");

        private final String label;

        Kind(String label) {
            this.label = label;
        }
    }

    private static final long SWEEP_MILLIS = 60_000;

    private final Backoff backoff;
    private final Clock clock;
    private final Vertx vertx;
    private final long timer;
    private final Map<Kind, Counter> failures = new EnumMap<>(Kind.class);
    private final Map<Kind, Counter> throttled = new EnumMap<>(Kind.class);

    public LoginThrottle(ThrottleConfig config, Clock clock, Vertx vertx, MeterRegistry meters) {
        this.backoff = new Backoff(config.failures(), config.window(), config.firstWait(), config.maxWait());
        this.clock = clock;
        this.vertx = vertx;
        for (Kind kind : Kind.values()) {
            failures.put(kind, Counter.builder("paycallback.auth.failures").tag("kind", kind.label)
                    .description("Bearer tokens, API keys and console logins that were refused as unknown").register(meters));
            throttled.put(kind, Counter.builder("paycallback.auth.throttled").tag("kind", kind.label)
                    .description("Requests refused with 429 because their address or key prefix failed too often")
                    .register(meters));
        }
        this.timer = vertx.setPeriodic(SWEEP_MILLIS, id -> backoff.sweep(clock.instant()));
    }

    @PreDestroy
    void stop() {
        vertx.cancelTimer(timer);
    }

    /** The address's key, and the API key prefix's when one was presented. */
    public static List<String> keys(String address, Optional<String> keyPrefix) {
        return keyPrefix.map(prefix -> List.of("address:" + address, "key:" + prefix)).orElseGet(() -> List.of("address:" + address));
    }

    /** How long to wait before trying again, when any of {@code keys} is held back; counted as throttled. */
    public Optional<Duration> refused(Kind kind, List<String> keys) {
        Duration longest = null;
        for (String key : keys) {
            Optional<Duration> wait = backoff.refused(key, clock.instant());
            if (wait.isPresent() && (longest == null || wait.get().compareTo(longest) > 0)) {
                longest = wait.get();
            }
        }
        if (longest != null) {
            throttled.get(kind).increment();
        }
        return Optional.ofNullable(longest);
    }

    public void failed(Kind kind, List<String> keys) {
        failures.get(kind).increment();
        keys.forEach(key -> backoff.failed(key, clock.instant()));
    }

    /** A key prefix that worked is forgiven; an address is not, so a valid key does not cover guessing beside it. */
    public void succeeded(Optional<String> keyPrefix) {
        keyPrefix.ifPresent(prefix -> backoff.succeeded("key:" + prefix));
    }

    /** Whole seconds for {@code Retry-After}, at least 1. */
    public static long seconds(Duration wait) {
        return Math.max(1, (wait.toMillis() + 999) / 1000);
    }
}
