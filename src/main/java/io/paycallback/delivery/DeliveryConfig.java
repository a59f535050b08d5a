package io.paycallback.delivery;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import io.smallrye.config.WithName;

import java.time.Duration;
import java.util.List;

/** How the relay delivers: its schedule and the destinations' circuits. The destinations are outbox/OutboxConfig's. */
@ConfigMapping(prefix = "paycallback.downstream")
public interface DeliveryConfig {

    /** The delivery schedule of events ({@link OutboxRelay}), not the lease engine's {@code paycallback.retry.backoff}. */
    @WithName("retry")
    Schedule schedule();

    /** When a destination's circuit opens, how it is probed, and when it is disabled ({@link DestinationCircuits}). */
    Breaker breaker();

    interface Schedule {
        /** Delay after the n-th failed try of an event; its length is the number of retries before a dead letter. */
        @WithDefault("5s,5m,30m,2h,5h,10h,10h")
        List<Duration> backoff();

        /** Each delay is spread by up to this fraction either way. */
        @WithDefault("0.2")
        double jitter();

        /** The longest wait a destination's Retry-After can ask for. */
        @WithDefault("1h")
        Duration retryAfterCap();
    }

    interface Breaker {
        /** Tries in the window before the failure ratio can open a destination's circuit. */
        @WithDefault("10")
        int minTries();

        /** The share of failed tries in the window that opens the circuit. */
        @WithDefault("0.7")
        double failureRatio();

        /** How far back the tries are counted, on each instance. */
        @WithDefault("5m")
        Duration window();

        /** How often an open circuit sends one waiting event to find out whether the destination is back. */
        @WithDefault("30s")
        Duration probeInterval();

        /** A circuit that stayed open this long since its first failure disables the destination. */
        @WithDefault("3d")
        Duration disableAfter();
    }
}
