package io.paycallback.auth;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Exponential back-off per key (a source address, an API key's prefix): after {@code failures} failures within a
 * window, the key is refused for the first wait, and each failure after a wait doubles it, up to the longest. A key
 * that stays quiet for a window (and twice its wait) is forgotten. Pure: the caller passes the time.
 */
final class Backoff {

    /** Beyond this many keys, new ones are not tracked (the oldest are swept first): memory stays bounded under a flood. */
    static final int MAX_KEYS = 100_000;

    private record State(Instant since, Instant last, int failures, Duration held, Instant until) {
    }

    private final int failures;
    private final Duration window;
    private final Duration firstWait;
    private final Duration maxWait;
    private final ConcurrentHashMap<String, State> states = new ConcurrentHashMap<>();

    Backoff(int failures, Duration window, Duration firstWait, Duration maxWait) {
        this.failures = Math.max(1, failures);
        this.window = window;
        this.firstWait = firstWait;
        this.maxWait = maxWait;
    }

    /** How long {@code key} is still refused, if it is. */
    Optional<Duration> refused(String key, Instant now) {
        State state = states.get(key);
        return state != null && state.until().isAfter(now) ? Optional.of(Duration.between(now, state.until())) : Optional.empty();
    }

    void failed(String key, Instant now) {
        if (states.size() >= MAX_KEYS && !states.containsKey(key)) {
            sweep(now);
            if (states.size() >= MAX_KEYS) {
                return;
            }
        }
        states.compute(key, (k, state) -> {
            if (state == null || forgotten(state, now)) {
                state = new State(now, now, 0, Duration.ZERO, Instant.EPOCH);
            }
            int count = state.failures() + 1;
            if (count < failures) {
                return new State(state.since(), now, count, state.held(), state.until());
            }
            Duration wait = state.held().isZero() ? firstWait : min(state.held().multipliedBy(2), maxWait);
            return new State(state.since(), now, count, wait, now.plus(wait));
        });
    }

    void succeeded(String key) {
        states.remove(key);
    }

    void sweep(Instant now) {
        states.entrySet().removeIf(entry -> forgotten(entry.getValue(), now));
    }

    int size() {
        return states.size();
    }

    private boolean forgotten(State state, Instant now) {
        if (state.until().isAfter(now)) {
            return false;
        }
        if (state.held().isZero()) {
            return now.isAfter(state.since().plus(window));
        }
        return now.isAfter(state.last().plus(max(window, state.held().multipliedBy(2))));
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }

    private static Duration max(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
    }
}
