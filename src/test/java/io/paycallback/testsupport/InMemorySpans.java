package io.paycallback.testsupport;

import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

/**
 * The spans the application exports, kept in memory for the tests to read (Quarkus exports to every SpanExporter
 * bean). Nothing reaches it while the SDK is disabled, as it is in every profile but the tracing tests'.
 */
@ApplicationScoped
public class InMemorySpans {

    @Produces
    @Singleton
    InMemorySpanExporter exporter() {
        return InMemorySpanExporter.create();
    }
}
