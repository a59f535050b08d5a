package io.paycallback.housekeeping;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

import java.time.Duration;

/** What {@link Housekeeping} blanks and archives, and how much per run. */
@ConfigMapping(prefix = "paycallback.housekeeping")
public interface HousekeepingConfig {

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
