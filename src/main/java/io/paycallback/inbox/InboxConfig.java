package io.paycallback.inbox;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

import java.time.Duration;

/**
 * Repeat pushes answered from memory ({@link KnownReservations}); size 0 sends every repeat to the database. Its keys
 * sit under {@code paycallback.callback}, beside the callback routes' own, as they always have.
 */
@ConfigMapping(prefix = "paycallback.callback.known-reservations")
public interface InboxConfig {

    @WithDefault("10000")
    int size();

    /** Providers repeat within seconds to minutes (WeChat Pay: 15 s, 15 s, 30 s, 3 min, then half-hours); at most 1d. */
    @WithDefault("15m")
    Duration ttl();
}
