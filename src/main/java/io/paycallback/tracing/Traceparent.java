package io.paycallback.tracing;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;

import java.util.Optional;
import java.util.regex.Pattern;

/**
 * A W3C {@code traceparent} (version 00) as it is stored beside the rows a callback causes and sent to destinations:
 * what lets the work of a later hop, on any instance and after any restart, join the trace of the callback.
 */
public record Traceparent(String value) {

    /** Version 00 only: what this build writes; a row written by another build that does not parse is ignored. */
    private static final Pattern FORMAT = Pattern.compile("00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}");
    public static final String HEADER = "traceparent";

    public Traceparent {
        if (value == null || !FORMAT.matcher(value).matches()) {
            throw new IllegalArgumentException("not a W3C traceparent: " + value);
        }
    }

    /** The stored column or a received header; empty when absent or not a traceparent this build reads. */
    public static Optional<Traceparent> parse(String value) {
        if (value == null || !FORMAT.matcher(value).matches()) {
            return Optional.empty();
        }
        Traceparent parsed = new Traceparent(value);
        return parsed.spanContext().isValid() ? Optional.of(parsed) : Optional.empty();
    }

    /** The span current on this thread (or Vert.x context); empty when none is, as always with tracing off. */
    public static Optional<Traceparent> current() {
        return of(Span.current().getSpanContext());
    }

    static Optional<Traceparent> of(SpanContext context) {
        if (!context.isValid()) {
            return Optional.empty();
        }
        return Optional.of(new Traceparent("00-" + context.getTraceId() + "-" + context.getSpanId() + "-"
                + context.getTraceFlags().asHex()));
    }

    /** For a nullable column. */
    public static String valueOrNull(Optional<Traceparent> traceparent) {
        return traceparent.map(Traceparent::value).orElse(null);
    }

    public String traceId() {
        return value.substring(3, 35);
    }

    public String spanId() {
        return value.substring(36, 52);
    }

    SpanContext spanContext() {
        return SpanContext.createFromRemoteParent(traceId(), spanId(), TraceFlags.fromHex(value, 53),
                TraceState.getDefault());
    }
}
