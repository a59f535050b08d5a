package io.paycallback.ops;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.paycallback.callback.CallbackMetrics;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

import static org.assertj.core.api.Assertions.assertThat;

class RecentOutcomesTest {

    /** A clock the test moves. */
    static final class Moving extends Clock {
        Instant now = Instant.parse("2026-12-01T00:00:00Z");

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }
    }

    @Test
    void countsTheRiseOverTheLastHourNotSinceStart() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        Counter busyWx = counter(registry, "wxpay", "rejected_busy");
        Counter busyStripe = counter(registry, "stripe", "rejected_busy");
        Counter storeFailed = counter(registry, "alipay", "store_failed");
        counter(registry, "wxpay", "new").increment(50);
        Moving clock = new Moving();
        Instant start = clock.now;
        RecentOutcomes recent = new RecentOutcomes(registry, clock);

        busyWx.increment(4);
        storeFailed.increment(1);
        assertThat(recent.lastHour()).as("younger than an hour: since start")
                .isEqualTo(new RecentOutcomes.Recent(4, 1, start));

        for (int minute = 1; minute <= 90; minute++) {
            clock.now = start.plus(Duration.ofMinutes(minute));
            if (minute == 45) {
                busyStripe.increment(2);
            }
            recent.sample();
        }
        RecentOutcomes.Recent lastHour = recent.lastHour();
        assertThat(lastHour.since()).isEqualTo(clock.now.minus(Duration.ofHours(1)));
        assertThat(lastHour.gateRejections()).as("the 4 of the first minute are over an hour old").isEqualTo(2);
        assertThat(lastHour.storeFailures()).isZero();
    }

    private static Counter counter(SimpleMeterRegistry registry, String channel, String outcome) {
        return Counter.builder(CallbackMetrics.CALLBACKS).tags("channel", channel, "kind", "payment", "outcome", outcome)
                .register(registry);
    }
}
