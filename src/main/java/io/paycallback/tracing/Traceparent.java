package io.paycallback.tracing;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;

import java.util.Optional;

/**
 * A W3C {@code traceparent} (version 00) as it is stored beside the rows a callback causes and sent to destinations:
 * what lets the work of a later hop, on any instance and after any restart, join the trace of the callback. Made only
 * by {@link #parse}, which checks the text, and from a span's own ids, well formed by construction: a class, not a
 * record, whose canonical constructor would check those again for every callback, sampled or not.
 */
public final class Traceparent {

    public static final String HEADER = "traceparent";
    private static final int LENGTH = 55;

    private final String value;

    private Traceparent(String value) {
        this.value = value;
    }

    /** The stored column or a received header; empty when absent or not a traceparent this build reads. */
    public static Optional<Traceparent> parse(String value) {
        if (!wellFormed(value)) {
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

    /**
     * Version 00 only, lower-case hex (what this build writes); a row written by another build that does not parse is
     * ignored. Checked by hand, not by a regular expression: it runs for every row a callback causes, sampled or not.
     */
    private static boolean wellFormed(String value) {
        if (value == null || value.length() != LENGTH || !value.startsWith("00-")
                || value.charAt(35) != '-' || value.charAt(52) != '-') {
            return false;
        }
        for (int i = 3; i < LENGTH; i++) {
            char c = value.charAt(i);
            boolean hex = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
            if (!hex && i != 35 && i != 52) {
                return false;
            }
        }
        return true;
    }

    /** For a nullable column. */
    public static String valueOrNull(Optional<Traceparent> traceparent) {
        return traceparent.map(Traceparent::value).orElse(null);
    }

    public String value() {
        return value;
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

    @Override
    public boolean equals(Object other) {
        return other instanceof Traceparent that && value.equals(that.value);
    }

    @Override
    public int hashCode() {
        return value.hashCode();
    }

    @Override
    public String toString() {
        return value;
    }
}
