package io.paycallback.health;

import io.paycallback.testsupport.SettableClock;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

class RecentRefusalsTest {

    /** Totals the test raises by hand, as the callback counters would. */
    private static final class Totals implements CallbackRefusals {
        long rejectedBusy;
        long storeFailed;

        @Override
        public long rejectedBusy() {
            return rejectedBusy;
        }

        @Override
        public long storeFailed() {
            return storeFailed;
        }
    }

    @Test
    void countsTheRiseOverTheLastHourNotSinceStart() {
        Totals totals = new Totals();
        Instant start = Instant.parse("2026-12-01T00:00:00Z");
        SettableClock clock = SettableClock.at(start);
        RecentRefusals recent = new RecentRefusals(totals, clock);

        totals.rejectedBusy += 4;
        totals.storeFailed += 1;
        assertThat(recent.lastHour()).as("younger than an hour: since start")
                .isEqualTo(new RecentRefusals.Recent(4, 1, start));

        for (int minute = 1; minute <= 90; minute++) {
            clock.advance(Duration.ofMinutes(1));
            if (minute == 45) {
                totals.rejectedBusy += 2;
            }
            recent.sample();
        }
        RecentRefusals.Recent lastHour = recent.lastHour();
        assertThat(lastHour.since()).isEqualTo(clock.instant().minus(Duration.ofHours(1)));
        assertThat(lastHour.gateRejections()).as("the 4 of the first minute are over an hour old").isEqualTo(2);
        assertThat(lastHour.storeFailures()).isZero();
    }
}
