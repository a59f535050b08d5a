package io.paycallback.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/**
 * Operators' bulk requeues: of the dead letters of every leased table (ops) and of a destination's events
 * (delivery). Shared by both, so it lives here rather than in either.
 */
@ConfigMapping(prefix = "paycallback.admin")
public interface RequeueConfig {

    /** Rows requeued per transaction by a bulk requeue: short transactions, short row locks. */
    @WithDefault("500")
    int requeueBatchSize();
}
