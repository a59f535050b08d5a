package io.paycallback.ops;

import io.paycallback.lease.LeasedTable;
import io.paycallback.outbox.Outbox;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.LocalDateTime;

/**
 * Dead letters of one leased table chosen by a filter, for an operator's bulk requeue. A selection is pinned by the
 * time of death ({@code updated_at}, set when a row is buried and not touched while it stays dead) being before a
 * cut-off taken from the database's clock, and by the id range seen then: a row that dies after the count has a later
 * {@code updated_at} and is never swept in.
 */
@ApplicationScoped
public class DeadLetters {

    static final String NOW = "SELECT NOW(3) AS now";
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
     * What to requeue; a null field matches everything. {@code channel} exists only on the callback logs and
     * {@code destination} only on the outbox.
     */
    public record Filter(LeasedTable table, LocalDateTime diedFrom, LocalDateTime diedBefore, String channel,
                         String merchantId, String destination, String errorContains) {

        public Filter {
            if (table == null) {
                throw new IllegalArgumentException("table is required");
            }
            if (table.equals(Outbox.TABLE) ? channel != null : destination != null) {
                throw new IllegalArgumentException(table.equals(Outbox.TABLE)
                        ? "channel applies to callbacks, not to the outbox" : "destination applies to the outbox only");
            }
            if (diedFrom != null && diedBefore != null && !diedFrom.isBefore(diedBefore)) {
                throw new IllegalArgumentException("from must be before to");
            }
        }
    }

    /** What a filter matched when it was counted; the cut-off and the id range pin it for the requeue. */
    public record Selection(Filter filter, LocalDateTime cutOff, long matched, long firstId, long lastId) {
    }

    private final Pool pool;

    public DeadLetters(Pool pool) {
        this.pool = pool;
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
