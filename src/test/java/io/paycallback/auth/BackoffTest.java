package io.paycallback.auth;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

class BackoffTest {

    private static final Instant T0 = Instant.parse("2026-12-01T00:00:00Z");

    private final Backoff backoff = new Backoff(5, Duration.ofMinutes(1), Duration.ofSeconds(1), Duration.ofMinutes(5));

    @Test
    void fiveFailuresInAMinuteHoldTheKeyBackForASecondThenDoublingUpToFiveMinutes() {
        for (int i = 0; i < 4; i++) {
            backoff.failed("address:10.0.0.1", T0.plusSeconds(i));
            assertThat(backoff.refused("address:10.0.0.1", T0.plusSeconds(i))).isEmpty();
        }
        backoff.failed("address:10.0.0.1", T0.plusSeconds(4));
        assertThat(backoff.refused("address:10.0.0.1", T0.plusSeconds(4))).contains(Duration.ofSeconds(1));
        assertThat(backoff.refused("address:10.0.0.2", T0.plusSeconds(4))).as("per key").isEmpty();

        Instant now = T0.plusSeconds(5);
        Duration expected = Duration.ofSeconds(1);
        for (int i = 0; i < 12; i++) {
            assertThat(backoff.refused("address:10.0.0.1", now)).as("its wait is over").isEmpty();
            backoff.failed("address:10.0.0.1", now);
            expected = expected.multipliedBy(2).compareTo(Duration.ofMinutes(5)) > 0 ? Duration.ofMinutes(5)
                    : expected.multipliedBy(2);
            assertThat(backoff.refused("address:10.0.0.1", now)).contains(expected);
            now = now.plus(expected);
        }
        assertThat(expected).isEqualTo(Duration.ofMinutes(5));
    }

    @Test
    void slowFailuresAreNeverHeldBackAndAQuietKeyIsForgotten() {
        for (int i = 0; i < 20; i++) {
            backoff.failed("key:pck_aaaaaaaa", T0.plusSeconds(61L * i));
        }
        assertThat(backoff.refused("key:pck_aaaaaaaa", T0.plusSeconds(61L * 19))).isEmpty();

        for (int i = 0; i < 5; i++) {
            backoff.failed("key:pck_bbbbbbbb", T0);
        }
        assertThat(backoff.refused("key:pck_bbbbbbbb", T0)).isPresent();
        backoff.sweep(T0.plusSeconds(1300));
        assertThat(backoff.size()).isZero();
        backoff.failed("key:pck_bbbbbbbb", T0.plusSeconds(1301));
        assertThat(backoff.refused("key:pck_bbbbbbbb", T0.plusSeconds(1301))).as("starts afresh").isEmpty();
    }

    @Test
    void aKeyThatWorkedIsForgiven() {
        for (int i = 0; i < 5; i++) {
            backoff.failed("key:pck_cccccccc", T0);
        }
        backoff.succeeded("key:pck_cccccccc");
        assertThat(backoff.refused("key:pck_cccccccc", T0)).isEqualTo(Optional.empty());
    }
}
