package io.paycallback.orderquery;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

import java.time.Duration;

/**
 * Asking the provider about orders whose callback never came. The later queries' schedule,
 * {@code paycallback.reconcile.schedule}, is shared with refund queries (providercall/ProviderCallConfig).
 */
@ConfigMapping(prefix = "paycallback.reconcile")
public interface OrderQueryConfig {

    /** An order PENDING this long is queried for the first time. */
    @WithDefault("5m")
    Duration after();

    /** Queries per second, per provider and merchant, on each instance. */
    @WithDefault("20")
    int maxPerSecond();

    /** PENDING orders enrolled for queries per sweep. */
    @WithDefault("500")
    int enrolBatch();
}
