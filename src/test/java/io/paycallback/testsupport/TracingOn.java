package io.paycallback.testsupport;

import io.quarkus.test.junit.QuarkusTestProfile;

import java.util.Map;

/**
 * Tracing as a deployment turns it on, every trace kept, exported within 50 ms to the in-memory exporter
 * ({@link InMemorySpans}) instead of a collector.
 */
public class TracingOn implements QuarkusTestProfile {

    @Override
    public Map<String, String> getConfigOverrides() {
        return Map.of("quarkus.otel.sdk.disabled", "false",
                "quarkus.otel.bsp.schedule.delay", "50ms");
    }
}
