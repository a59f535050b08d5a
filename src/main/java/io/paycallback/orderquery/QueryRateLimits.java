package io.paycallback.orderquery;

import io.github.resilience4j.ratelimiter.RateLimiter;
import io.github.resilience4j.ratelimiter.RateLimiterConfig;
import io.github.resilience4j.ratelimiter.RequestNotPermitted;
import io.paycallback.trade.ChannelId;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** {@code paycallback.reconcile.max-per-second} queries per provider and merchant, on this instance. */
@ApplicationScoped
public class QueryRateLimits {

    private final RateLimiterConfig limit;
    private final Map<String, RateLimiter> limiters = new ConcurrentHashMap<>();

    public QueryRateLimits(OrderQueryConfig config) {
        this.limit = RateLimiterConfig.custom()
                .limitForPeriod(config.maxPerSecond())
                .limitRefreshPeriod(Duration.ofSeconds(1))
                .timeoutDuration(Duration.ofSeconds(30))
                .build();
    }

    /**
     * Waits for a permit; blocks, so only on a worker thread.
     *
     * @return false when none came within the limiter's timeout: the query waits for its next round
     */
    public boolean acquire(ChannelId channel, String merchantId) {
        RateLimiter limiter = limiters.computeIfAbsent(channel.path() + "/" + merchantId, name -> RateLimiter.of(name, limit));
        try {
            RateLimiter.waitForPermission(limiter);
            return true;
        } catch (RequestNotPermitted e) {
            return false;
        }
    }
}
