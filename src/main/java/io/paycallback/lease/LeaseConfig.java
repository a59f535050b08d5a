package io.paycallback.lease;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

import java.time.Duration;
import java.util.List;

/**
 * The lease engine: how long a lease lasts, the backoff of every leased table but the outbox (whose delivery schedule
 * is {@code paycallback.downstream.retry}), the scanner and the workers. The key prefix {@code paycallback.retry}
 * predates the package and stays, since deployments set it.
 */
@ConfigMapping(prefix = "paycallback.retry")
public interface LeaseConfig {

    /** Delay after the n-th failure; its length is the number of tries before a dead letter. */
    @WithDefault("10s,30s,60s,5m,15m,30m,1h,2h")
    List<Duration> backoff();

    @WithDefault("60s")
    Duration lease();

    @WithDefault("5s")
    Duration scanInterval();

    /** Time after start-up before the first scan. */
    @WithDefault("5s")
    Duration scanDelay();

    /**
     * Rows leased per scan statement: the workers times {@link #transactionSize}, so one scan keeps every worker
     * busy with a full transaction.
     */
    @WithDefault("800")
    int batchSize();

    /**
     * Rows tried together in one transaction with one commit: the scanner's leased batches and the fresh rows
     * queued for the workers are cut to this size. 1 tries every row in its own transaction.
     */
    @WithDefault("50")
    int transactionSize();

    /** Worker threads running transitions and deliveries. */
    @WithDefault("16")
    int workers();

    /** Fresh callbacks waiting for a worker; past this the scanner picks them up. */
    @WithDefault("1024")
    int handOffQueue();

    /** How long shutdown waits for tries in progress. */
    @WithDefault("10s")
    Duration shutdownGrace();
}
