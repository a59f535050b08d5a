package io.paycallback.auth;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

import java.time.Duration;

/** How failed sign-ins and wrong keys are slowed down ({@code paycallback.login-throttle.*}, docs/operations.md). */
@ConfigMapping(prefix = "paycallback.login-throttle")
public interface ThrottleConfig {

    /** Failures from one address, or with one key's prefix, within {@link #window()} before requests are refused. */
    @WithDefault("5")
    int failures();

    @WithDefault("1m")
    Duration window();

    /** The first refusal's wait; each failure after a wait doubles it, up to {@link #maxWait()}. */
    @WithDefault("1s")
    Duration firstWait();

    @WithDefault("5m")
    Duration maxWait();
}
