package io.paycallback.lease;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.paycallback.trend.TrendRecorder;
import io.paycallback.trend.TrendSeries;
import io.quarkus.arc.All;
import io.quarkus.runtime.Startup;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code paycallback_processing_total{table,result}}: what each leased try came to. Every series exists from
 * start-up, at zero: the results every handler may report, and the backoff's own. The console's charts count the same.
 */
@Startup
@ApplicationScoped
public class ProcessingMetrics {

    static final String PROCESSING = "paycallback.processing";
    static final String RETRIED = "retried";
    static final String DEAD = "dead";
    static final String LEASE_LOST = "lease_lost";
    /** Given back, not counted: the row holds a value of another release (a rolling upgrade or a rollback). */
    static final String UNKNOWN_VALUE = "unknown_value";
    /** Buried at once by its handler, with no retry. */
    static final String DEAD_LETTER = "dead_letter";

    private final Map<LeasedTable, Map<String, Counter>> counters = new HashMap<>();
    private final Map<LeasedTable, Map<String, String>> trendLabels = new HashMap<>();
    private final TrendRecorder trends;

    public ProcessingMetrics(MeterRegistry registry, @All List<LeaseHandler> handlers, TrendRecorder trends) {
        this.trends = trends;
        for (LeaseHandler handler : handlers) {
            List<String> results = new ArrayList<>(List.of(RETRIED, DEAD, LEASE_LOST, DEAD_LETTER, UNKNOWN_VALUE));
            results.addAll(handler.results());
            Map<String, Counter> byResult = new HashMap<>();
            for (String result : results) {
                byResult.put(result, Counter.builder(PROCESSING)
                        .description("Leased tries of callbacks and outbox events, by result")
                        .tags("table", handler.table().table(), "result", result)
                        .register(registry));
            }
            counters.put(handler.table(), byResult);
            Map<String, String> labels = new HashMap<>();
            results.forEach(result -> labels.put(result, handler.table().label() + " " + result));
            trendLabels.put(handler.table(), labels);
        }
    }

    public void record(LeasedTable table, String result) {
        counters.get(table).get(result).increment();
        trends.count(TrendSeries.PROCESSED, trendLabels.get(table).get(result), 1);
    }
}
