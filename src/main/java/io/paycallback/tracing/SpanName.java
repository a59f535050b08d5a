package io.paycallback.tracing;

import io.opentelemetry.api.trace.SpanKind;

/** The spans this service makes; Quarkus's own around each HTTP request are off (application.properties). */
public enum SpanName {
    /** One provider callback: verified, reserved, answered. */
    CALLBACK("callback", SpanKind.INTERNAL),
    /** One transaction of a batch of stored callbacks; linked to each row's callback. */
    TRANSITION_BATCH("transition.batch", SpanKind.INTERNAL),
    /** One stored callback settled in a batch: a child of its callback's span. */
    TRANSITION("transition", SpanKind.INTERNAL),
    /** One HTTP try of an outbox event: a child of the span that wrote the event. */
    DELIVERY("delivery", SpanKind.CLIENT),
    /**
     * One try of a leased row that asks a provider (a refund submission, a close, a query): a child of the span that
     * wrote the row.
     */
    PROVIDER_TRY("provider.try", SpanKind.INTERNAL),
    /**
     * One try of a statement run: a trace of its own, which the payments and refunds it repairs continue.
     */
    STATEMENT_RUN("statement.run", SpanKind.INTERNAL),
    /** One request to a provider's API: a child of the span current when it is made. */
    PROVIDER_CALL("provider.call", SpanKind.CLIENT);

    private final String spanName;
    private final SpanKind kind;

    SpanName(String spanName, SpanKind kind) {
        this.spanName = spanName;
        this.kind = kind;
    }

    public String spanName() {
        return spanName;
    }

    SpanKind kind() {
        return kind;
    }
}
