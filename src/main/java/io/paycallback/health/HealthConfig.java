package io.paycallback.health;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import io.smallrye.config.WithName;

import java.time.Duration;

/** What the health checks and gauges read: the backlog gauge's threshold and the readiness check on a Galera node. */
@ConfigMapping(prefix = "paycallback")
public interface HealthConfig {

    /** A callback still pending this long after it arrived counts as backlog: that gauge must stay at zero. */
    @WithName("monitoring.stale-pending-after")
    @WithDefault("1h")
    Duration stalePendingAfter();

    /**
     * Readiness on a Galera node: {@code auto} checks wsrep_ready and wsrep_local_state when the server reports
     * them (and does nothing on a plain MySQL or MariaDB), {@code on} requires them, {@code off} never asks.
     */
    @WithName("database.galera-check")
    @WithDefault("auto")
    GaleraCheck galeraCheck();

    /** See {@link #galeraCheck()}. */
    enum GaleraCheck {
        AUTO,
        ON,
        OFF
    }
}
