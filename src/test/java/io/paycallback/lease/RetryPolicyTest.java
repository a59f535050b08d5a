package io.paycallback.lease;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RetryPolicyTest {

    private final RetryPolicy policy = new RetryPolicy(List.of(Duration.ofSeconds(10), Duration.ofSeconds(30),
            Duration.ofMinutes(1), Duration.ofMinutes(5), Duration.ofMinutes(15), Duration.ofMinutes(30),
            Duration.ofHours(1), Duration.ofHours(2)));

    @Test
    void theNthFailureWaitsTheNthDelay() {
        assertThat(policy.delayAfter(0)).contains(Duration.ofSeconds(10));
        assertThat(policy.delayAfter(1)).contains(Duration.ofSeconds(30));
        assertThat(policy.delayAfter(7)).contains(Duration.ofHours(2));
    }

    @Test
    void theFailureAfterTheLastDelayIsFinal() {
        assertThat(policy.delayAfter(8)).isEmpty();
        assertThat(policy.delayAfter(20)).isEmpty();
    }

    @Test
    void anEmptyBackoffIsRefused() {
        assertThatThrownBy(() -> new RetryPolicy(List.of())).isInstanceOf(IllegalArgumentException.class);
    }
}
