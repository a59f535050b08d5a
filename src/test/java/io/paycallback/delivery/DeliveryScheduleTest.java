package io.paycallback.delivery;

import io.paycallback.lease.RetryPolicy;
import io.paycallback.testsupport.SettableClock;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/** The delivery schedule's jitter, Retry-After, and the window that opens a circuit. */
class DeliveryScheduleTest {

    private static final List<Duration> SVIX = List.of(Duration.ofSeconds(5), Duration.ofMinutes(5),
            Duration.ofMinutes(30), Duration.ofHours(2), Duration.ofHours(5), Duration.ofHours(10), Duration.ofHours(10));

    @Test
    void everyDelayStaysWithinTwentyPercentOfItsStepAndTheSpreadUsesTheWholeRange() {
        RetryPolicy schedule = new RetryPolicy(SVIX, 0.2);
        Random random = new Random(7);
        for (int step = 0; step < SVIX.size(); step++) {
            long nominal = SVIX.get(step).toMillis();
            long lowest = Long.MAX_VALUE;
            long highest = 0;
            for (int draw = 0; draw < 2_000; draw++) {
                long delay = schedule.delayAfter(step, random).orElseThrow().toMillis();
                assertThat(delay).isBetween(Math.round(nominal * 0.8), Math.round(nominal * 1.2));
                lowest = Math.min(lowest, delay);
                highest = Math.max(highest, delay);
            }
            assertThat(lowest).as("step %d reaches down", step).isLessThan(Math.round(nominal * 0.82));
            assertThat(highest).as("step %d reaches up", step).isGreaterThan(Math.round(nominal * 1.18));
        }
        assertThat(schedule.delayAfter(SVIX.size(), random)).isEmpty();
    }

    @Test
    void theDefaultScheduleSpansAboutADay() {
        assertThat(SVIX.stream().reduce(Duration.ZERO, Duration::plus)).isBetween(Duration.ofHours(24), Duration.ofHours(30));
    }

    @Test
    void retryAfterIsSecondsOrAnHttpDateAndNothingElse() {
        Instant now = Instant.parse("2026-12-05T10:00:00Z");
        assertThat(RetryAfter.parse("120", now)).contains(Duration.ofSeconds(120));
        assertThat(RetryAfter.parse(" 0 ", now)).contains(Duration.ZERO);
        assertThat(RetryAfter.parse("Sat, 05 Dec 2026 10:02:30 GMT", now)).contains(Duration.ofSeconds(150));
        assertThat(RetryAfter.parse("Sat, 05 Dec 2026 09:00:00 GMT", now)).contains(Duration.ZERO);
        assertThat(RetryAfter.parse("99999999999999999999999", now)).hasValueSatisfying(wait ->
                assertThat(wait).isGreaterThan(Duration.ofDays(365)));
        for (String ignored : new String[] {null, "", "soon", "-5", "1.5", "2026-12-05T10:02:30Z"}) {
            assertThat(RetryAfter.parse(ignored, now)).as(String.valueOf(ignored)).isEmpty();
        }
    }

    @Test
    void theWindowCountsTheLastFiveMinutesOnly() {
        SettableClock clock = SettableClock.at(Instant.parse("2026-12-05T10:00:00Z"));
        FailureWindow window = new FailureWindow(Duration.ofMinutes(5), clock);
        for (int i = 0; i < 7; i++) {
            window.record(true);
        }
        clock.advance(Duration.ofMinutes(3));
        for (int i = 0; i < 3; i++) {
            window.record(false);
        }
        assertThat(window.counts()).isEqualTo(new FailureWindow.Counts(10, 7, 0));
        assertThat(window.counts().failureRatio()).isEqualTo(0.7);

        clock.advance(Duration.ofMinutes(2).plusSeconds(31));
        assertThat(window.counts()).isEqualTo(new FailureWindow.Counts(3, 0, 0));
        clock.advance(Duration.ofMinutes(5));
        assertThat(window.counts()).isEqualTo(new FailureWindow.Counts(0, 0, 0));

        window.record(true);
        window.clear();
        assertThat(window.counts().tries()).isZero();
    }

    @Test
    void aDestinationThatJustStoppedAnsweringShowsInItsFailuresInARowLongBeforeInTheRatio() {
        FailureWindow window = new FailureWindow(Duration.ofMinutes(5), SettableClock.at(Instant.parse("2026-12-05T10:00:00Z")));
        for (int i = 0; i < 100; i++) {
            window.record(false);
        }
        for (int i = 0; i < 10; i++) {
            window.record(true);
        }
        assertThat(window.counts()).isEqualTo(new FailureWindow.Counts(110, 10, 10));
        assertThat(window.counts().failureRatio()).isLessThan(0.1);
        window.record(false);
        assertThat(window.counts().failedInARow()).isZero();
    }
}
