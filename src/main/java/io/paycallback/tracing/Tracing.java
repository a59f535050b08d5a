package io.paycallback.tracing;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import jakarta.inject.Singleton;
import org.eclipse.microprofile.config.inject.ConfigProperty;

import java.util.Map;
import java.util.Optional;

/**
 * Starts the service's spans ({@link SpanName}). With the OpenTelemetry SDK disabled (the default,
 * {@code quarkus.otel.sdk.disabled=true}) every span is {@link Traced#NONE}: nothing is built, recorded or exported,
 * and the rows' traceparent columns stay NULL. A singleton: called for every callback, row and try, it is reached
 * without a client proxy's lookup.
 */
@Singleton
public class Tracing {

    private final Tracer tracer;
    private final boolean on;

    public Tracing(OpenTelemetry openTelemetry,
                   @ConfigProperty(name = "quarkus.otel.sdk.disabled", defaultValue = "false") boolean sdkDisabled) {
        this.tracer = openTelemetry.getTracer("io.paycallback");
        this.on = !sdkDisabled;
    }

    public boolean on() {
        return on;
    }

    /** A child of the current span (the HTTP request's, for a callback), or a new trace's root. */
    public Traced start(SpanName name) {
        return on ? new Traced.On(tracer.spanBuilder(name.spanName()).setSpanKind(name.kind()).startSpan()) : Traced.NONE;
    }

    /**
     * A request's span that does not join the trace of the {@code traceparent} it arrived with, which anyone on the
     * internet can write: a new trace's root (or a child of the current span), linked to that traceparent when it is a
     * valid one, so that a trace viewer shows where the request came from (an ingress or gateway that traces). An
     * absent or malformed header adds no link; with tracing off the headers are not read.
     *
     * @param headers the request's headers, names in lower case
     */
    public Traced startLinkedToCaller(SpanName name, Map<String, String> headers) {
        if (!on) {
            return Traced.NONE;
        }
        SpanBuilder builder = tracer.spanBuilder(name.spanName()).setSpanKind(name.kind());
        Traceparent.parse(headers.get(Traceparent.HEADER)).ifPresent(caller -> builder.addLink(caller.spanContext()));
        return new Traced.On(builder.startSpan());
    }

    /**
     * A child of a stored traceparent, which may come from another instance or from before a restart; a new trace's
     * root without one (a row written with tracing off, or by a release that stored none).
     */
    public Traced startFrom(SpanName name, Optional<Traceparent> parent) {
        if (!on) {
            return Traced.NONE;
        }
        SpanBuilder builder = tracer.spanBuilder(name.spanName()).setSpanKind(name.kind());
        builder.setParent(parent.map(stored -> Context.root().with(Span.wrap(stored.spanContext())))
                .orElse(Context.root()));
        return new Traced.On(builder.startSpan());
    }

    /** A new trace's root, whatever is current: a batch of many callbacks is part of none of their traces. */
    public Traced startRoot(SpanName name) {
        return on ? new Traced.On(tracer.spanBuilder(name.spanName()).setSpanKind(name.kind()).setNoParent().startSpan())
                : Traced.NONE;
    }

    /** Links two started spans both ways, such as a batch and one of its rows, which live in different traces. */
    public static void link(Traced one, Traced other) {
        if (one instanceof Traced.On first && other instanceof Traced.On second) {
            first.span().addLink(second.span().getSpanContext());
            second.span().addLink(first.span().getSpanContext());
        }
    }
}
