package io.paycallback.ops;

import io.paycallback.inbox.CallbackTable;
import io.paycallback.lease.LeasedTable;
import io.paycallback.lease.RowStatus;
import io.paycallback.outbox.Outbox;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Dead letters of one leased table chosen by a filter, for an operator's bulk requeue. A selection is pinned by the
 * time of death ({@code updated_at}, set when a row is buried and not touched while it stays dead) being before a
 * cut-off taken from the database's clock, and by the id range seen then: a row that dies after the count has a later
 * {@code updated_at} and is never swept in.
 */
@ApplicationScoped
public class DeadLetters {

    static final String NOW = "SELECT NOW(3) AS now";
    static final String LIST = """
            SELECT id, merchant_id, retry_count, last_error, updated_at FROM %s WHERE status = 2
            ORDER BY updated_at DESC, id DESC LIMIT ?""";
    static final String STATUS = "SELECT status FROM %s WHERE id = ?";
    // Done, as nothing more will be tried; the note in last_error tells it from a row that succeeded, whose finish
    // clears last_error. Status 1 rather than a status of its own: every release reads it.
    static final String RESOLVE = """
            UPDATE %s SET status = 1, lease_token = NULL, last_error = ?, updated_at = NOW(3) WHERE id = ? AND status = 2""";
    static final String COUNT = "SELECT COUNT(*) AS matched, MIN(id) AS first_id, MAX(id) AS last_id FROM %s WHERE %s";
    static final String REQUEUE_BATCH = """
            UPDATE %s SET status = 0, retry_count = 0, next_retry_at = NOW(3), lease_token = NULL, last_error = NULL,
                updated_at = NOW(3)
            WHERE %s AND id BETWEEN ? AND ? ORDER BY id LIMIT ?""";
    static final String DEAD_BEFORE = "status = 2 AND updated_at < ?";
    static final String DIED_FROM = " AND updated_at >= ?";
    static final String CHANNEL = " AND channel = ?";
    static final String MERCHANT = " AND merchant_id = ?";
    static final String DESTINATION = " AND destination = ?";
    // '!' as the escape character: a backslash would mean different things under NO_BACKSLASH_ESCAPES.
    static final String ERROR_CONTAINS = " AND last_error LIKE ? ESCAPE '!'";

    /**
     * What to requeue; a null field matches everything. {@code channel} applies to the callback logs only and
     * {@code destination} to the outbox only.
     */
    public record Filter(LeasedTable table, LocalDateTime diedFrom, LocalDateTime diedBefore, String channel,
                         String merchantId, String destination, String errorContains) {

        public Filter {
            if (table == null) {
                throw new IllegalArgumentException("table is required");
            }
            if (channel != null && CallbackTable.of(table).isEmpty()) {
                throw new IllegalArgumentException("channel applies to the callbacks (payment, refund) only");
            }
            if (destination != null && !table.equals(Outbox.TABLE)) {
                throw new IllegalArgumentException("destination applies to the outbox only");
            }
            if (diedFrom != null && diedBefore != null && !diedFrom.isBefore(diedBefore)) {
                throw new IllegalArgumentException("from must be before to");
            }
        }
    }

    /** What a filter matched when it was counted; the cut-off and the id range pin it for the requeue. */
    public record Selection(Filter filter, LocalDateTime cutOff, long matched, long firstId, long lastId) {
    }

    /** A dead row of any leased table, as much as every such table has. */
    public record DeadLetter(long id, String merchantId, int tries, String lastError, LocalDateTime diedAt) {
    }

    private final Pool pool;

    public DeadLetters(Pool pool) {
        this.pool = pool;
    }

    /** The table's dead rows, the latest to die first. */
    public Uni<List<DeadLetter>> list(LeasedTable table, int limit) {
        return pool.preparedQuery(LIST.formatted(table.table())).execute(Tuple.of(limit)).map(rows -> {
            List<DeadLetter> dead = new ArrayList<>();
            for (Row row : rows) {
                dead.add(new DeadLetter(row.getLong("id"), row.getString("merchant_id"), row.getInteger("retry_count"),
                        row.getString("last_error"), row.getLocalDateTime("updated_at")));
            }
            return dead;
        });
    }

    /** The row's status; empty when the table has no such row. */
    public Uni<Optional<RowStatus>> status(SqlClient client, LeasedTable table, long id) {
        return client.preparedQuery(STATUS.formatted(table.table())).execute(Tuple.of(id)).map(rows -> {
            var found = rows.iterator();
            return found.hasNext() ? Optional.of(RowStatus.of(found.next().getInteger("status"))) : Optional.empty();
        });
    }

    /** Closes a dead row for good with a person's note, in the caller's transaction; false when it is not dead. */
    public Uni<Boolean> resolve(SqlClient client, LeasedTable table, long id, String note) {
        return client.preparedQuery(RESOLVE.formatted(table.table())).execute(Tuple.of(note, id))
                .map(rows -> rows.rowCount() == 1);
    }

    /** Counts the filter's dead letters that died before now (or before its end, if earlier). */
    public Uni<Selection> select(Filter filter) {
        return pool.query(NOW).execute().flatMap(now -> {
            LocalDateTime dbNow = now.iterator().next().getLocalDateTime("now");
            LocalDateTime cutOff = filter.diedBefore() != null && filter.diedBefore().isBefore(dbNow) ? filter.diedBefore() : dbNow;
            Tuple params = params(filter, cutOff);
            return pool.preparedQuery(COUNT.formatted(filter.table().table(), where(filter))).execute(params).map(rows -> {
                Row row = rows.iterator().next();
                long matched = row.getLong("matched");
                return matched == 0
                        ? new Selection(filter, cutOff, 0, 0, 0)
                        : new Selection(filter, cutOff, matched, row.getLong("first_id"), row.getLong("last_id"));
            });
        });
    }

    /**
     * Requeues up to {@code limit} rows of the selection that are still dead, lowest ids first, in the caller's
     * transaction. Requeued rows leave the selection (they are no longer dead), so calling it again takes the next ones.
     *
     * @return how many rows it requeued
     */
    public Uni<Integer> requeueBatch(SqlClient client, Selection selection, int limit) {
        Filter filter = selection.filter();
        Tuple params = params(filter, selection.cutOff()).addLong(selection.firstId()).addLong(selection.lastId())
                .addInteger(limit);
        return client.preparedQuery(REQUEUE_BATCH.formatted(filter.table().table(), where(filter))).execute(params)
                .map(rows -> rows.rowCount());
    }

    private static String where(Filter filter) {
        StringBuilder where = new StringBuilder(DEAD_BEFORE);
        if (filter.diedFrom() != null) {
            where.append(DIED_FROM);
        }
        if (filter.channel() != null) {
            where.append(CHANNEL);
        }
        if (filter.merchantId() != null) {
            where.append(MERCHANT);
        }
        if (filter.destination() != null) {
            where.append(DESTINATION);
        }
        if (filter.errorContains() != null) {
            where.append(ERROR_CONTAINS);
        }
        return where.toString();
    }

    private static Tuple params(Filter filter, LocalDateTime cutOff) {
        Tuple params = Tuple.tuple().addLocalDateTime(cutOff);
        if (filter.diedFrom() != null) {
            params.addLocalDateTime(filter.diedFrom());
        }
        if (filter.channel() != null) {
            params.addString(filter.channel());
        }
        if (filter.merchantId() != null) {
            params.addString(filter.merchantId());
        }
        if (filter.destination() != null) {
            params.addString(filter.destination());
        }
        if (filter.errorContains() != null) {
            params.addString("%" + filter.errorContains().replace("!", "!!").replace("%", "!%").replace("_", "!_") + "%");
        }
        return params;
    }
}
