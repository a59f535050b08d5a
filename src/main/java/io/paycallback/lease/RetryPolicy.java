package io.paycallback.lease;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.random.RandomGenerator;

/**
 * When to try a failed row again: the n-th delay after the n-th failure, spread by up to {@code jitter} (a fraction)
 * either way, so rows that failed together are not all tried again at the same moment. Once every delay is spent, the
 * next failure is final and the row becomes a dead letter.
 */
public record RetryPolicy(List<Duration> backoff, double jitter) {

    public RetryPolicy {
        if (backoff.isEmpty()) {
            throw new IllegalArgumentException("paycallback.retry.backoff needs at least one delay");
        }
        if (!(jitter >= 0 && jitter < 1)) {
            throw new IllegalArgumentException("a backoff's jitter is a fraction from 0 to below 1, not " + jitter);
        }
        backoff = List.copyOf(backoff);
    }

    /** Exactly the delays, no jitter. */
    public RetryPolicy(List<Duration> backoff) {
        this(backoff, 0);
    }

    /**
     * @param failuresBefore failures counted on the row before this one
     * @return the delay before the next try, or empty when this failure is final
     */
    public Optional<Duration> delayAfter(int failuresBefore) {
        return delayAfter(failuresBefore, ThreadLocalRandom.current());
    }

    /** {@link #delayAfter(int)} with the jitter drawn from {@code random}. */
    public Optional<Duration> delayAfter(int failuresBefore, RandomGenerator random) {
        if (failuresBefore >= backoff.size()) {
            return Optional.empty();
        }
        Duration delay = backoff.get(failuresBefore);
        if (jitter == 0) {
            return Optional.of(delay);
        }
        double factor = 1 + jitter * (2 * random.nextDouble() - 1);
        return Optional.of(Duration.ofNanos(Math.round(delay.toNanos() * factor)));
    }
}
