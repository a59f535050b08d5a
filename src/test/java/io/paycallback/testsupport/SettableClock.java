package io.paycallback.testsupport;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Alternative;
import jakarta.enterprise.inject.Produces;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * The service's clock in suites whose profile enables it ({@code getEnabledAlternatives}): the real time plus an offset
 * the test moves forward, so a wait the service measures on its clock passes without sleeping.
 */
public final class SettableClock extends Clock {

    private volatile Duration offset = Duration.ZERO;

    public void advance(Duration by) {
        offset = offset.plus(by);
    }

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
        return Instant.now().plus(offset);
    }

    /** Produces the one settable clock in place of config.ClockProducer's; the test moves it through {@link #clock()}. */
    @Alternative
    @ApplicationScoped
    public static class Producer {

        private final SettableClock clock = new SettableClock();

        @Produces
        @Alternative
        @ApplicationScoped
        Clock produce() {
            return clock;
        }

        public SettableClock clock() {
            return clock;
        }
    }
}
