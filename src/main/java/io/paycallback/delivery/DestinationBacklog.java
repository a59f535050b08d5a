package io.paycallback.delivery;

import io.paycallback.outbox.Outbox;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.LocalDateTime;

/** What a destination has pending, counted on the index (destination, status, next_retry_at) without reading rows. */
@ApplicationScoped
public class DestinationBacklog {

    static final String PENDING = """
            SELECT COUNT(*) AS pending, COALESCE(SUM(lease_token <=> ?), 0) AS parked, MIN(id) AS oldest_id,
                   MIN(IF(lease_token <=> ?, NULL, next_retry_at)) AS next_due
            FROM outbox WHERE destination = ? AND status = 0""";
    static final String CREATED = "SELECT created_at, TIMESTAMPDIFF(SECOND, created_at, NOW(3)) AS age FROM outbox WHERE id = ?";
    // The done row tried last: next_retry_at is when it was last leased, so the index's end has it.
    static final String LAST_DELIVERED = """
            SELECT delivered_at FROM outbox WHERE destination = ? AND status = 1 ORDER BY next_retry_at DESC LIMIT 1""";

    /**
     * @param parked        how many of the pending events are parked
     * @param oldestAt      when the oldest pending event was written; null without any
     * @param oldestSeconds its age by the database's clock; 0 without any
     * @param nextDueAt     the earliest next try of a pending event that is not parked (in the past: overdue)
     */
    public record Backlog(long pending, long parked, LocalDateTime oldestAt, long oldestSeconds, LocalDateTime nextDueAt) {
    }

    private final Pool pool;

    public DestinationBacklog(Pool pool) {
        this.pool = pool;
    }

    public Uni<Backlog> of(String destination) {
        return pool.preparedQuery(PENDING).execute(Tuple.of(Outbox.PARKED, Outbox.PARKED, destination)).flatMap(rows -> {
            Row row = rows.iterator().next();
            long pending = row.getLong("pending");
            long parked = row.getLong("parked");
            LocalDateTime nextDue = row.getLocalDateTime("next_due");
            Long oldest = row.getLong("oldest_id");
            if (oldest == null) {
                return Uni.createFrom().item(new Backlog(pending, parked, null, 0, nextDue));
            }
            // Ids rise with time closely enough for an age; the row's own stamp gives the time.
            return pool.preparedQuery(CREATED).execute(Tuple.of(oldest)).map(created -> {
                var found = created.iterator();
                if (!found.hasNext()) {
                    return new Backlog(pending, parked, null, 0, nextDue);
                }
                Row first = found.next();
                return new Backlog(pending, parked, first.getLocalDateTime("created_at"), first.getLong("age"), nextDue);
            });
        });
    }

    /** When its most recently tried delivered event was delivered; null when none is in the hot table. */
    public Uni<LocalDateTime> lastDelivered(String destination) {
        return pool.preparedQuery(LAST_DELIVERED).execute(Tuple.of(destination)).map(rows -> {
            var found = rows.iterator();
            return found.hasNext() ? found.next().getLocalDateTime("delivered_at") : null;
        });
    }
}
