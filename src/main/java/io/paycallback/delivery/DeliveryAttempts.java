package io.paycallback.delivery;

import io.paycallback.lease.RowLease;
import io.paycallback.lease.LeaseLostException;
import io.paycallback.lease.LeaseStatements;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.core.buffer.Buffer;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;

import java.nio.charset.StandardCharsets;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Every HTTP try of an outbox event, written with the try's outcome: the try that delivers it on the event's row, by
 * the finish that marks it done; every other try in {@code delivery_attempts}. Read back as one list.
 */
@ApplicationScoped
public class DeliveryAttempts {

    static final String INSERT = """
            INSERT INTO delivery_attempts (outbox_id, try_number, destination, attempted_at, result, http_status, error,
                                           latency_ms, response_length, response_body)
            VALUES (?, ?, ?, DATE_SUB(NOW(3), INTERVAL ? MICROSECOND), ?, ?, ?, ?, ?, ?)""";
    static final String LIST_FOR_EVENT = """
            SELECT id, outbox_id, try_number, destination, attempted_at, result, http_status, error, latency_ms,
                   response_length, response_body
            FROM delivery_attempts WHERE outbox_id = ? ORDER BY id""";
    // Housekeeping moves an event's attempts here with the event, in one transaction.
    static final String LIST_ARCHIVED_FOR_EVENT = """
            SELECT id, outbox_id, try_number, destination, attempted_at, result, http_status, error, latency_ms,
                   response_length, response_body
            FROM delivery_attempts_archive WHERE outbox_id = ? ORDER BY id""";
    static final String EVENT = """
            SELECT retry_count, destination, delivered_at, delivered_http_status, delivered_latency_ms,
                   delivered_response_length, delivered_response_body
            FROM outbox WHERE id = ?""";
    static final String ARCHIVED_EVENT = """
            SELECT retry_count, destination, delivered_at, delivered_http_status, delivered_latency_ms,
                   delivered_response_length, delivered_response_body
            FROM outbox_archive WHERE id = ?""";

    private static final List<LeaseStatements.RowColumn> DELIVERED_TRY = List.of(
            new LeaseStatements.RowColumn("delivered_at", "DATE_SUB(NOW(3), INTERVAL %s MICROSECOND)"),
            new LeaseStatements.RowColumn("delivered_http_status", "%s"),
            new LeaseStatements.RowColumn("delivered_latency_ms", "%s"),
            new LeaseStatements.RowColumn("delivered_response_length", "%s"),
            new LeaseStatements.RowColumn("delivered_response_body", "%s"));

    private final Pool pool;
    private final LeaseStatements leases;

    public DeliveryAttempts(Pool pool, LeaseStatements leases) {
        this.pool = pool;
        this.leases = leases;
    }

    public Uni<Void> record(SqlClient client, DeliveryAttempt attempt) {
        Tuple values = Tuple.tuple().addLong(attempt.outboxId()).addInteger(attempt.tryNumber())
                .addString(attempt.destination()).addLong(attempt.microsSinceStart()).addString(attempt.result().label())
                .addInteger(attempt.httpStatus()).addString(attempt.error()).addLong(attempt.latencyMillis())
                .addInteger(attempt.responseLength());
        if (attempt.responseBody() == null) {
            values.addValue(null);
        } else {
            values.addBuffer(Buffer.buffer(attempt.responseBody()));
        }
        return client.preparedQuery(INSERT).execute(values).replaceWithVoid();
    }

    /**
     * Marks the events done, each with its delivering try, in one fenced statement inside the caller's transaction;
     * fails with {@link LeaseLostException} unless every lease is still held.
     */
    public Uni<Void> finishDelivered(SqlClient client, Map<RowLease, DeliveryAttempt> delivered) {
        List<LeaseStatements.Finishing> rows = new ArrayList<>(delivered.size());
        delivered.forEach((lease, attempt) -> rows.add(new LeaseStatements.Finishing(lease, Arrays.asList(
                attempt.microsSinceStart(), attempt.httpStatus(), attempt.latencyMillis(),
                attempt.responseLength(), io.vertx.core.buffer.Buffer.buffer(attempt.responseBody())))));
        return leases.finishAll(client, DELIVERED_TRY, rows);
    }

    /**
     * One event's delivering try and its finish, in one transaction. When the lease is gone (another worker has the
     * row now), the try did still reach the destination: it is recorded on its own before the failure goes on.
     */
    public Uni<Void> finishDelivered(RowLease lease, DeliveryAttempt attempt) {
        return pool.withTransaction(tx -> finishDelivered(tx, Map.of(lease, attempt)))
                .onFailure(LeaseLostException.class).call(() -> record(pool, attempt));
    }

    /** Every attempt of one event, oldest first; empty when the event does not exist in the hot table. */
    public Uni<Optional<List<RecordedAttempt>>> list(long eventId) {
        return withDeliveredTry(eventId, EVENT, LIST_FOR_EVENT);
    }

    /** Every attempt of one archived event, oldest first; empty when no event has this id in the archive. */
    public Uni<Optional<List<RecordedAttempt>>> listArchived(long eventId) {
        return withDeliveredTry(eventId, ARCHIVED_EVENT, LIST_ARCHIVED_FOR_EVENT);
    }

    private Uni<Optional<List<RecordedAttempt>>> withDeliveredTry(long eventId, String event, String others) {
        return pool.preparedQuery(event).execute(Tuple.of(eventId)).flatMap(events -> {
            var found = events.iterator();
            if (!found.hasNext()) {
                return Uni.createFrom().item(Optional.<List<RecordedAttempt>>empty());
            }
            Optional<RecordedAttempt> delivered = deliveredTry(eventId, found.next());
            return pool.preparedQuery(others).execute(Tuple.of(eventId)).map(rows -> {
                List<RecordedAttempt> attempts = new ArrayList<>();
                for (Row row : rows) {
                    attempts.add(recorded(row));
                }
                delivered.ifPresent(attempts::add);
                // Stable: a delivered try of the same millisecond as a failed one still comes after it.
                attempts.sort(Comparator.comparing(RecordedAttempt::attemptedAt));
                return Optional.of(attempts);
            });
        });
    }

    /**
     * The try kept on the event's row, with no id of its own; empty until the event is delivered, and for events
     * delivered before V9, whose delivering try is a {@code delivery_attempts} row.
     */
    private static Optional<RecordedAttempt> deliveredTry(long eventId, Row event) {
        LocalDateTime at = event.getLocalDateTime("delivered_at");
        if (at == null) {
            return Optional.empty();
        }
        Buffer body = event.getBuffer("delivered_response_body");
        Integer length = event.getInteger("delivered_response_length");
        return Optional.of(new RecordedAttempt(null, eventId, event.getInteger("retry_count") + 1, at,
                event.getString("destination"), DeliveryResult.DELIVERED, event.getInteger("delivered_http_status"), null,
                event.getLong("delivered_latency_ms"), length, text(body), truncated(body, length)));
    }

    private static RecordedAttempt recorded(Row row) {
        Buffer body = row.getBuffer("response_body");
        Integer length = row.getInteger("response_length");
        return new RecordedAttempt(row.getLong("id"), row.getLong("outbox_id"), row.getInteger("try_number"),
                row.getLocalDateTime("attempted_at"), row.getString("destination"),
                DeliveryResult.of(row.getString("result")), row.getInteger("http_status"), row.getString("error"),
                row.getLong("latency_ms"), length, text(body), truncated(body, length));
    }

    private static String text(Buffer body) {
        return body == null ? null : new String(body.getBytes(), StandardCharsets.UTF_8);
    }

    private static boolean truncated(Buffer body, Integer length) {
        return body != null && length != null && length > body.length();
    }
}
