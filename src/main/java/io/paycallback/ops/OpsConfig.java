package io.paycallback.ops;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import io.smallrye.config.WithName;

import java.time.Duration;

/**
 * What operations reads: housekeeping, the backlog gauge's threshold and the readiness check on a Galera node. Its
 * keys sit in three sections ({@code housekeeping}, {@code monitoring}, {@code database}), the others of which belong
 * to {@code config}.
 */
@ConfigMapping(prefix = "paycallback")
public interface OpsConfig {

    /** What {@link Housekeeping} blanks and archives, and how much per run. */
    Cleanup housekeeping();

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

    interface Cleanup {
        /** Raw bodies of done callbacks are blanked this long after they were done. */
        @WithDefault("1d")
        Duration blankBodiesAfter();

        /** Done rows older than this move to the archive tables; never under 7 days, while providers may still push. */
        @WithDefault("90d")
        Duration retention();

        /** Rows per statement: small batches keep row locks short. */
        @WithDefault("500")
        int batchSize();

        @WithDefault("10m")
        Duration interval();

        /** Upper bound of batches per table and run, so one run never hogs the database. */
        @WithDefault("200")
        int maxBatchesPerRun();
    }

    /** See {@link #galeraCheck()}. */
    enum GaleraCheck {
        AUTO,
        ON,
        OFF
    }
}
