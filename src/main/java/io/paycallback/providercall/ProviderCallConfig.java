package io.paycallback.providercall;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

import java.time.Duration;
import java.util.List;

/**
 * The rounds of a provider call asked again until its answer is final ({@link ProviderCallHandler#nextRound}): the
 * queries of a PENDING order (orderquery) and of a submitted refund (submission) follow the same schedule. The
 * prefix {@code paycallback.reconcile} predates the packages and stays, since deployments set it.
 */
@ConfigMapping(prefix = "paycallback.reconcile")
public interface ProviderCallConfig {

    /** Delays of the later queries; after the last one an order still PENDING raises an alert. */
    @WithDefault("5m,15m,1h,6h,24h,48h")
    List<Duration> schedule();
}
