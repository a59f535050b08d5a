package io.paycallback.tracing;

import io.opentelemetry.api.common.AttributeKey;

/**
 * What a span may carry. Identifiers and outcomes only: never a key, a signature, a token or a body, which is why
 * callers name one of these instead of any string.
 */
public enum SpanAttribute {
    PROVIDER("paycallback.provider"),
    MERCHANT("paycallback.merchant"),
    KIND("paycallback.kind"),
    OUTCOME("paycallback.outcome"),
    TABLE("paycallback.table"),
    ROW("paycallback.row"),
    BATCH_SIZE("paycallback.batch.size"),
    DESTINATION("paycallback.destination"),
    EVENT_TYPE("paycallback.event.type"),
    EVENT_ID("paycallback.event.id"),
    TRY("paycallback.try"),
    OPERATION("paycallback.operation"),
    HTTP_METHOD("http.request.method"),
    HTTP_STATUS("http.response.status_code");

    private final AttributeKey<String> text;
    private final AttributeKey<Long> number;

    SpanAttribute(String key) {
        this.text = AttributeKey.stringKey(key);
        this.number = AttributeKey.longKey(key);
    }

    public String key() {
        return text.getKey();
    }

    AttributeKey<String> text() {
        return text;
    }

    AttributeKey<Long> number() {
        return number;
    }
}
