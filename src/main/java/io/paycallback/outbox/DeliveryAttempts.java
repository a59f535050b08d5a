package io.paycallback.outbox;

import io.paycallback.ledger.LeaseLostException;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.core.buffer.Buffer;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/** The {@code delivery_attempts} table: every HTTP try of an outbox event, written with the try's outcome. */
@ApplicationScoped
public class DeliveryAttempts {

    static final String INSERT_COLUMNS = """
            INSERT INTO delivery_attempts (outbox_id, try_number, destination, attempted_at, result, http_status, error,
                                           latency_ms, response_length, response_body)
            VALUES """;
    static final String VALUES = "(?, ?, ?, DATE_SUB(NOW(3), INTERVAL ? MICROSECOND), ?, ?, ?, ?, ?, ?)";
    static final String LIST_FOR_EVENT = """
            SELECT id, outbox_id, try_number, destination, attempted_at, result, http_status, error, latency_ms,
                   response_length, response_body
            FROM delivery_attempts WHERE outbox_id = ? ORDER BY id""";
    // Housekeeping moves an event's attempts here with the event, in one transaction.
    static final String LIST_ARCHIVED_FOR_EVENT = """
            SELECT id, outbox_id, try_number, destination, attempted_at, result, http_status, error, latency_ms,
                   response_length, response_body
            FROM delivery_attempts_archive WHERE outbox_id = ? ORDER BY id""";
    static final String EVENT_EXISTS = "SELECT COUNT(*) FROM outbox WHERE id = ?";

    private final Pool pool;

    public DeliveryAttempts(Pool pool) {
        this.pool = pool;
    }

    public Uni<Void> record(SqlClient client, DeliveryAttempt attempt) {
        return recordAll(client, List.of(attempt));
    }

    /** Several attempts with one statement. */
    public Uni<Void> recordAll(SqlClient client, List<DeliveryAttempt> attempts) {
        Tuple values = Tuple.tuple();
        for (DeliveryAttempt attempt : attempts) {
            // The statement runs a moment after the try ended; measuring back from now puts the row at the try's start.
            long sinceStartMicros = (System.nanoTime() - attempt.startedNanos()) / 1_000;
            values.addLong(attempt.outboxId()).addInteger(attempt.tryNumber())
                    .addString(attempt.destination()).addLong(sinceStartMicros).addString(attempt.result().label())
                    .addInteger(attempt.httpStatus()).addString(attempt.error()).addLong(attempt.latencyMillis())
                    .addInteger(attempt.responseLength());
            if (attempt.responseBody() == null) {
                values.addValue(null);
            } else {
                values.addBuffer(Buffer.buffer(attempt.responseBody()));
            }
        }
        String sql = INSERT_COLUMNS + String.join(", ", Collections.nCopies(attempts.size(), VALUES));
        return client.preparedQuery(sql).execute(values).replaceWithVoid();
    }

    /**
     * Runs the try's outcome and records the attempt in one transaction. When the outcome finds the lease gone (another
     * worker has the row now), the transaction rolls back, but the try did reach the destination: the attempt is then
     * recorded on its own before the failure goes on.
     */
    public <T> Uni<T> withOutcome(DeliveryAttempt attempt, Function<SqlClient, Uni<T>> outcome) {
        return pool.withTransaction(tx -> outcome.apply(tx).call(() -> record(tx, attempt)))
                .onFailure(LeaseLostException.class).call(() -> record(pool, attempt));
    }

    /** Every attempt of one event, oldest first; empty when the event does not exist in the hot table. */
    public Uni<Optional<List<RecordedAttempt>>> list(long eventId) {
        return pool.preparedQuery(EVENT_EXISTS).execute(Tuple.of(eventId)).flatMap(exists -> {
            if (exists.iterator().next().getLong(0) == 0) {
                return Uni.createFrom().item(Optional.<List<RecordedAttempt>>empty());
            }
            return pool.preparedQuery(LIST_FOR_EVENT).execute(Tuple.of(eventId)).map(rows -> {
                List<RecordedAttempt> attempts = new ArrayList<>();
                for (Row row : rows) {
                    attempts.add(recorded(row));
                }
                return Optional.of(attempts);
            });
        });
    }

    /** Every attempt of one archived event, oldest first; empty also when no event has this id in the archive. */
    public Uni<List<RecordedAttempt>> listArchived(long eventId) {
        return pool.preparedQuery(LIST_ARCHIVED_FOR_EVENT).execute(Tuple.of(eventId)).map(rows -> {
            List<RecordedAttempt> attempts = new ArrayList<>();
            for (Row row : rows) {
                attempts.add(recorded(row));
            }
            return attempts;
        });
    }

    private static RecordedAttempt recorded(Row row) {
        Buffer body = row.getBuffer("response_body");
        Integer length = row.getInteger("response_length");
        return new RecordedAttempt(row.getLong("id"), row.getLong("outbox_id"), row.getInteger("try_number"),
                row.getLocalDateTime("attempted_at"), row.getString("destination"),
                DeliveryResult.of(row.getString("result")), row.getInteger("http_status"), row.getString("error"),
                row.getLong("latency_ms"), length,
                body == null ? null : new String(body.getBytes(), StandardCharsets.UTF_8),
                body != null && length != null && length > body.length());
    }
}
