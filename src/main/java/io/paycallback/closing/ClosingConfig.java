package io.paycallback.closing;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

import java.time.Duration;
import java.util.Optional;

/** Orders the service closes by itself. The key prefix {@code paycallback.orders} stays, since deployments set it. */
@ConfigMapping(prefix = "paycallback.orders")
public interface ClosingConfig {

    /**
     * PENDING orders registered longer ago than this are closed at their providers like a close request of the
     * order service (the seed's 关单任务); absent (the default): never.
     */
    Optional<Duration> expireAfter();

    /** Expired orders closed per scan, on each instance. */
    @WithDefault("100")
    int expireBatch();
}
