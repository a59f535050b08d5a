package io.paycallback.ops;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.paycallback.callback.CallbackMetrics;
import io.paycallback.testsupport.SettableClock;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

class RecentOutcomesTest {

    @Test
    void countsTheRiseOverTheLastHourNotSinceStart() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        Counter busyWx = counter(registry, "wxpay", "rejected_busy");
        Counter busyStripe = counter(registry, "stripe", "rejected_busy");
        Counter storeFailed = counter(registry, "alipay", "store_failed");
        counter(registry, "wxpay", "new").increment(50);
        Instant start = Instant.parse("2026-12-01T00:00:00Z");
        SettableClock clock = SettableClock.at(start);
        RecentOutcomes recent = new RecentOutcomes(registry, clock);

        busyWx.increment(4);
        storeFailed.increment(1);
        assertThat(recent.lastHour()).as("younger than an hour: since start")
                .isEqualTo(new RecentOutcomes.Recent(4, 1, start));

        for (int minute = 1; minute <= 90; minute++) {
            clock.advance(Duration.ofMinutes(1));
            if (minute == 45) {
                busyStripe.increment(2);
            }
            recent.sample();
        }
        RecentOutcomes.Recent lastHour = recent.lastHour();
        assertThat(lastHour.since()).isEqualTo(clock.instant().minus(Duration.ofHours(1)));
        assertThat(lastHour.gateRejections()).as("the 4 of the first minute are over an hour old").isEqualTo(2);
        assertThat(lastHour.storeFailures()).isZero();
    }

    private static Counter counter(SimpleMeterRegistry registry, String channel, String outcome) {
        return Counter.builder(CallbackMetrics.CALLBACKS).tags("channel", channel, "kind", "payment", "outcome", outcome)
                .register(registry);
    }
}
