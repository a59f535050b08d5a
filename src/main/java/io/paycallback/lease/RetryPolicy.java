package io.paycallback.lease;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * When to try a failed row again: the n-th delay after the n-th failure. Once every delay is spent, the next failure
 * is final and the row becomes a dead letter.
 */
public record RetryPolicy(List<Duration> backoff) {

    public RetryPolicy {
        if (backoff.isEmpty()) {
            throw new IllegalArgumentException("paycallback.retry.backoff needs at least one delay");
        }
        backoff = List.copyOf(backoff);
    }

    /**
     * @param failuresBefore failures counted on the row before this one
     * @return the delay before the next try, or empty when this failure is final
     */
    public Optional<Duration> delayAfter(int failuresBefore) {
        return failuresBefore < backoff.size() ? Optional.of(backoff.get(failuresBefore)) : Optional.empty();
    }
}
