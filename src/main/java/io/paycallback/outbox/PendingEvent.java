package io.paycallback.outbox;

import io.paycallback.tracing.Traceparent;
import io.vertx.mutiny.sqlclient.Row;

import java.util.Optional;

/**
 * What the relay needs of an outbox row to deliver it.
 *
 * @param traceparent the span that wrote it, which each try continues; empty for a row written with tracing off or by
 *                    a release that stores none
 */
public record PendingEvent(long id, String source, String type, String destination, String payload,
                           Optional<Traceparent> traceparent) {

    /** From a row with these columns, as each statement that reads events for their delivery selects them. */
    public static PendingEvent of(Row row) {
        return new PendingEvent(row.getLong("id"), row.getString("source"), row.getString("type"),
                row.getString("destination"), row.getString("payload"), Traceparent.parse(row.getString("traceparent")));
    }

    public String idempotencyKey() {
        return Outbox.idempotencyKey(source, type, destination);
    }
}
