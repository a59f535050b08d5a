package io.paycallback.tracing;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Scope;

import java.util.Optional;

/** One span of ours, or nothing at all while tracing is off ({@link #NONE}): callers never test whether tracing is on. */
public sealed interface Traced permits Traced.Off, Traced.On {

    Traced NONE = new Off();

    Traced set(SpanAttribute attribute, String value);

    Traced set(SpanAttribute attribute, long value);

    /** Marks the span failed, with a reason fit for operators (never a secret or a body). */
    Traced failed(String reason);

    void end();

    /** Its W3C traceparent, to store with the rows it causes or send; empty when off. */
    Optional<Traceparent> traceparent();

    /**
     * Makes it the current span until closed: its trace id goes into the MDC of the log lines written meanwhile, and
     * whatever starts meanwhile becomes its child.
     */
    Current makeCurrent();

    /** A scope that closes without a checked exception. */
    @FunctionalInterface
    interface Current extends AutoCloseable {
        @Override
        void close();
    }

    final class Off implements Traced {

        private static final Current NOTHING = () -> { };

        private Off() {
        }

        @Override
        public Traced set(SpanAttribute attribute, String value) {
            return this;
        }

        @Override
        public Traced set(SpanAttribute attribute, long value) {
            return this;
        }

        @Override
        public Traced failed(String reason) {
            return this;
        }

        @Override
        public void end() {
        }

        @Override
        public Optional<Traceparent> traceparent() {
            return Optional.empty();
        }

        @Override
        public Current makeCurrent() {
            return NOTHING;
        }
    }

    record On(Span span) implements Traced {

        @Override
        public Traced set(SpanAttribute attribute, String value) {
            if (value != null) {
                span.setAttribute(attribute.text(), value);
            }
            return this;
        }

        @Override
        public Traced set(SpanAttribute attribute, long value) {
            span.setAttribute(attribute.number(), value);
            return this;
        }

        @Override
        public Traced failed(String reason) {
            span.setStatus(StatusCode.ERROR, reason);
            return this;
        }

        @Override
        public void end() {
            span.end();
        }

        @Override
        public Optional<Traceparent> traceparent() {
            return Traceparent.of(span.getSpanContext());
        }

        @Override
        public Current makeCurrent() {
            Scope scope = span.makeCurrent();
            return scope::close;
        }
    }
}
