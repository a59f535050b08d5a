package io.paycallback.retry;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.paycallback.ledger.LeasedTable;
import jakarta.enterprise.context.ApplicationScoped;

/** {@code paycallback_processing_total{table,result}}: what each leased try came to. */
@ApplicationScoped
public class ProcessingMetrics {

    static final String PROCESSING = "paycallback.processing";

    private final MeterRegistry registry;

    public ProcessingMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    public void record(LeasedTable table, String result) {
        Counter.builder(PROCESSING)
                .description("Leased tries of callbacks and outbox events, by result")
                .tags("table", table.table(), "result", result)
                .register(registry)
                .increment();
    }
}
