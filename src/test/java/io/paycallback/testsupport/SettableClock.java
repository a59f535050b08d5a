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
 * A clock the test moves forward, so a wait measured on it passes without sleeping. The service's clock in suites whose
 * profile enables {@link Producer} ({@code getEnabledAlternatives}) is the real time plus the offset; a pure unit takes
 * one standing still at a given instant ({@link #at}), so that only the test moves it.
 */
public final class SettableClock extends Clock {

    private final Clock base;
    private volatile Duration offset = Duration.ZERO;
    private volatile Instant frozenAt;

    public SettableClock() {
        this(Clock.systemUTC());
    }

    private SettableClock(Clock base) {
        this.base = base;
    }

    /** A clock at {@code start} that moves only when advanced. */
    public static SettableClock at(Instant start) {
        return new SettableClock(Clock.fixed(start, ZoneOffset.UTC));
    }

    public void advance(Duration by) {
        offset = offset.plus(by);
    }

    /** Stops the clock where it is, for a test whose assertions must not depend on how fast the machine is. */
    public void freeze() {
        frozenAt = base.instant();
    }

    /** Lets it run again, from the real time plus the offset. */
    public void thaw() {
        frozenAt = null;
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
        Instant frozen = frozenAt;
        return (frozen == null ? base.instant() : frozen).plus(offset);
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
