package io.paycallback.outbox;

import io.paycallback.tracing.Traceparent;
import io.vertx.mutiny.sqlclient.Row;

import java.util.Optional;

/**
 * What the relay needs of an outbox row to deliver it.
 *
 * @param traceparent the span that wrote it, which each try continues; empty for a row written with tracing off or by
 *                    a release that stores none
 * @param ageMicros   how long ago it was written when it was read, by the database's clock (the row's created_at)
 * @param readNanos   {@link System#nanoTime()} when it was read
 */
public record PendingEvent(long id, String source, String type, String destination, String merchantId,
                           Optional<String> outTradeNo, String payload, Optional<Traceparent> traceparent,
                           long ageMicros, long readNanos) {

    /**
     * From a row with these columns, as each statement that reads events for their delivery selects them: its age as
     * {@code age_us}, measured by the database, so that no instance's clock has to agree with the database's.
     */
    public static PendingEvent of(Row row) {
        return new PendingEvent(row.getLong("id"), row.getString("source"), row.getString("type"),
                row.getString("destination"), row.getString("merchant_id"), Optional.ofNullable(row.getString("out_trade_no")),
                row.getString("payload"), Traceparent.parse(row.getString("traceparent")),
                Math.max(0, row.getLong("age_us")), System.nanoTime());
    }

    /** How long ago it was written: its age when read, and the time since. */
    public long ageMillis() {
        return ageMicros / 1_000 + (System.nanoTime() - readNanos) / 1_000_000;
    }

    /**
     * What keeps one order's events together: its merchant and order number (an event of no order is a key of its
     * own), so a Kafka destination puts them on one partition, in the order they were sent.
     */
    public String orderKey() {
        return merchantId + ":" + outTradeNo.orElse(source);
    }

    public String idempotencyKey() {
        return Outbox.idempotencyKey(source, type, destination);
    }
}
