package io.paycallback.delivery;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.paycallback.outbox.OutboxConfig;
import io.paycallback.trend.TrendRecorder;
import io.paycallback.trend.TrendSeries;
import io.paycallback.trend.Trends;
import io.quarkus.runtime.Startup;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.EnumMap;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * {@code paycallback_outbox_deliveries_total{destination,result}} and
 * {@code paycallback_outbox_delivery_seconds{destination}}: HTTP tries of outbox events. Every configured destination's
 * series exist from start-up, at zero; a row naming a destination no longer configured counts under {@code unknown}.
 */
@Startup
@ApplicationScoped
public class DeliveryMetrics {

    static final String DELIVERIES = "paycallback.outbox.deliveries";
    static final String LATENCY = "paycallback.outbox.delivery";
    static final String UNKNOWN = "unknown";

    private final Map<String, Map<DeliveryResult, Counter>> counters = new HashMap<>();
    private final Map<String, Timer> timers = new HashMap<>();
    private final TrendRecorder trends;

    public DeliveryMetrics(MeterRegistry registry, OutboxConfig config, TrendRecorder trends) {
        this.trends = trends;
        for (String destination : config.destinations().keySet()) {
            register(registry, destination);
        }
        register(registry, UNKNOWN);
    }

    private void register(MeterRegistry registry, String destination) {
        Map<DeliveryResult, Counter> byResult = new EnumMap<>(DeliveryResult.class);
        for (DeliveryResult result : DeliveryResult.values()) {
            if (result == DeliveryResult.UNKNOWN) {
                continue;
            }
            byResult.put(result, Counter.builder(DELIVERIES)
                    .description("HTTP tries of outbox events, by destination and result")
                    .tags("destination", destination, "result", result.label())
                    .register(registry));
        }
        counters.put(destination, byResult);
        timers.put(destination, Timer.builder(LATENCY)
                .description("Time from the start of an outbox event's HTTP try to its answer or failure")
                .tags("destination", destination)
                .publishPercentileHistogram()
                .register(registry));
    }

    void record(DeliveryAttempt attempt) {
        String destination = counters.containsKey(attempt.destination()) ? attempt.destination() : UNKNOWN;
        counters.get(destination).get(attempt.result()).increment();
        timers.get(destination).record(System.nanoTime() - attempt.startedNanos(), TimeUnit.NANOSECONDS);
        trends.count(TrendSeries.DELIVERIES, destination + " " + (attempt.delivered() ? "delivered" : "failed"), 1);
    }

    /** An event delivered {@code ageMillis} after it was written, for the chart of how long delivery takes. */
    void deliveredAfter(String destination, long ageMillis) {
        trends.count(TrendSeries.DELIVERY_LATENCY, destination + " " + Trends.bucketLabel(ageMillis), 1);
    }
}
