package io.paycallback.tracing;

import io.opentelemetry.api.common.AttributeKey;

/**
 * What a span may carry. Identifiers and outcomes only: never a key, a signature, a token or a body, which is why
 * callers name one of these instead of any string.
 */
public enum SpanAttribute {
    PROVIDER("pay.provider"),
    MERCHANT("pay.merchant"),
    KIND("pay.kind"),
    OUTCOME("pay.outcome"),
    TABLE("pay.table"),
    ROW("pay.row"),
    BATCH_SIZE("pay.batch.size"),
    DESTINATION("pay.destination"),
    EVENT_TYPE("pay.event.type"),
    EVENT_ID("pay.event.id"),
    TRY("pay.try"),
    HTTP_METHOD("http.request.method"),
    HTTP_STATUS("http.response.status_code"),
    MESSAGING_SYSTEM("messaging.system"),
    MESSAGING_DESTINATION("messaging.destination.name");

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
