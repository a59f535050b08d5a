package io.paycallback.retry;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.paycallback.ledger.LeasedTable;
import io.paycallback.order.Transition;
import io.quarkus.runtime.Startup;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code paycallback_processing_total{table,result}}: what each leased try came to. Every series exists from
 * start-up, at zero.
 */
@Startup
@ApplicationScoped
public class ProcessingMetrics {

    static final String PROCESSING = "paycallback.processing";
    static final String RETRIED = "retried";
    static final String DEAD = "dead";
    static final String LEASE_LOST = "lease_lost";

    private final Map<LeasedTable, Map<String, Counter>> counters = new EnumMap<>(LeasedTable.class);

    public ProcessingMetrics(MeterRegistry registry) {
        List<String> results = new ArrayList<>(List.of(RETRIED, DEAD, LEASE_LOST));
        for (Transition.Result result : Transition.Result.values()) {
            results.add(result.tag());
        }
        for (LeasedTable table : LeasedTable.values()) {
            Map<String, Counter> byResult = new HashMap<>();
            for (String result : results) {
                byResult.put(result, Counter.builder(PROCESSING)
                        .description("Leased tries of callbacks and outbox events, by result")
                        .tags("table", table.table(), "result", result)
                        .register(registry));
            }
            counters.put(table, byResult);
        }
    }

    public void record(LeasedTable table, String result) {
        counters.get(table).get(result).increment();
    }
}
