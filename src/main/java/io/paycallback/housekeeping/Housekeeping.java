package io.paycallback.housekeeping;

import io.paycallback.closing.CloseRequests;
import io.paycallback.db.MySqlErrors;
import io.paycallback.inbox.CallbackInbox;
import io.paycallback.inbox.CallbackTable;
import io.paycallback.lease.LeasedTable;
import io.paycallback.lease.RowStatus;
import io.paycallback.order.Refunds;
import io.paycallback.orderquery.OrderQueries;
import io.paycallback.outbox.Outbox;
import io.quarkus.scheduler.Scheduled;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.RowSet;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Keeps the hot tables small. Raw bodies of callbacks done for a day are blanked (status DONE to COMPACTED); done rows
 * past the retention move to the archive tables, an outbox row together with its delivery attempts. Both walk the (status, next_retry_at) index in small batches, so no
 * statement holds many locks; both are idempotent, and several instances may run them at once (the row locks of the
 * archive batch make the loser find nothing).
 */
@ApplicationScoped
public class Housekeeping {

    private static final Logger LOG = Logger.getLogger(Housekeeping.class);
    static final Duration MINIMUM_RETENTION = Duration.ofDays(7);

    private static final String BLANK = """
            UPDATE %s SET raw_body = '', status = 3
            WHERE status = 1 AND next_retry_at < DATE_SUB(NOW(3), INTERVAL ? MICROSECOND)
            ORDER BY next_retry_at LIMIT ?""";
    private static final String SELECT_EXPIRED = """
            SELECT * FROM %s WHERE status = ? AND next_retry_at < DATE_SUB(NOW(3), INTERVAL ? MICROSECOND)
            ORDER BY next_retry_at LIMIT ? FOR UPDATE""";
    private static final String DELETE = "DELETE FROM %s WHERE id = ? AND status = ?";
    // Work items whose outcome lives elsewhere (the order, the refund row): nothing of them is worth archiving.
    private static final String PURGE = """
            DELETE FROM %s WHERE status = 1 AND next_retry_at < DATE_SUB(NOW(3), INTERVAL ? MICROSECOND)
            ORDER BY next_retry_at LIMIT ?""";
    // The provider calls are an order's story for operators; past the retention they go with the rows they explain.
    private static final String PURGE_CALLS = """
            DELETE FROM provider_calls WHERE created_at < DATE_SUB(NOW(3), INTERVAL ? MICROSECOND)
            ORDER BY created_at LIMIT ?""";
    static final String ATTEMPTS = "delivery_attempts";
    private static final String SELECT_ATTEMPTS = "SELECT * FROM " + ATTEMPTS + " WHERE outbox_id IN (%s)";
    private static final String DELETE_ATTEMPT = "DELETE FROM " + ATTEMPTS + " WHERE id = ?";

    private final Pool pool;
    private final Duration blankAfter;
    private final Duration retention;
    private final int batchSize;
    private final int maxBatches;

    public Housekeeping(Pool pool, HousekeepingConfig settings) {
        this.pool = pool;
        if (settings.retention().compareTo(MINIMUM_RETENTION) < 0) {
            throw new IllegalArgumentException("paycallback.housekeeping.retention must be at least 7d: providers push"
                    + " the same notice for days, and its row is what makes the repeat a duplicate");
        }
        this.blankAfter = settings.blankBodiesAfter();
        this.retention = settings.retention();
        this.batchSize = settings.batchSize();
        this.maxBatches = settings.maxBatchesPerRun();
    }

    @Scheduled(every = "${paycallback.housekeeping.interval}", delayed = "1m",
            concurrentExecution = Scheduled.ConcurrentExecution.SKIP, skipExecutionIf = Scheduled.ApplicationNotRunning.class)
    void run() {
        try {
            runOnce();
        } catch (RuntimeException e) {
            LOG.warnf("Housekeeping failed, the next run continues: %s", e.toString());
        }
    }

    public Swept runOnce() {
        long blanked = 0;
        long archived = 0;
        for (LeasedTable log : List.of(CallbackTable.PAYMENT.leased(), CallbackTable.REFUND.leased(),
                CallbackInbox.PENDING_REFUNDS)) {
            blanked += blankBodies(log);
            archived += archive(log, RowStatus.COMPACTED);
        }
        archived += archive(Outbox.TABLE, RowStatus.DONE);
        long purged = 0;
        for (LeasedTable work : List.of(OrderQueries.TABLE, Refunds.SUBMISSIONS,
                CloseRequests.TABLE)) {
            purged += inBatches(PURGE.formatted(work.table()), retention);
        }
        purged += inBatches(PURGE_CALLS, retention);
        if (blanked + archived + purged > 0) {
            LOG.infof("Housekeeping blanked %d raw bodies, archived %d rows and purged %d finished queries,"
                    + " submissions, close requests and provider calls", blanked, archived, purged);
        }
        return new Swept(blanked, archived, purged);
    }

    public record Swept(long blanked, long archived, long purged) {
    }

    private long blankBodies(LeasedTable table) {
        return inBatches(BLANK.formatted(table.table()), blankAfter);
    }

    /** Runs a batched UPDATE or DELETE of rows older than {@code age} until a batch comes back short. */
    private long inBatches(String sql, Duration age) {
        long total = 0;
        for (int batch = 0; batch < maxBatches; batch++) {
            int changed = pool.preparedQuery(sql).execute(Tuple.of(TimeUnit.MICROSECONDS.convert(age), batchSize))
                    .await().atMost(Duration.ofSeconds(30)).rowCount();
            total += changed;
            if (changed < batchSize) {
                break;
            }
        }
        return total;
    }

    private long archive(LeasedTable table, RowStatus status) {
        long total = 0;
        for (int batch = 0; batch < maxBatches; batch++) {
            int moved = pool.withTransaction(tx -> archiveBatch(tx, table, status))
                    .onFailure(MySqlErrors::isDuplicateKey).recoverWithItem(0)
                    .await().atMost(Duration.ofSeconds(60));
            total += moved;
            if (moved < batchSize) {
                break;
            }
        }
        return total;
    }

    /** One transaction: lock a batch, copy it to the archive, delete it. Single-table statements only. */
    private Uni<Integer> archiveBatch(SqlClient tx, LeasedTable table, RowStatus status) {
        return tx.preparedQuery(SELECT_EXPIRED.formatted(table.table()))
                .execute(Tuple.of(status.code(), TimeUnit.MICROSECONDS.convert(retention), batchSize))
                .flatMap(rows -> rows.size() == 0
                        ? Uni.createFrom().item(0)
                        : copy(tx, table.table(), rows).chain(() -> delete(tx, table, status, rows))
                        .chain(() -> table.equals(Outbox.TABLE) ? archiveAttempts(tx, rows) : Uni.createFrom().voidItem())
                        .replaceWith(rows.size()));
    }

    /**
     * The attempts of outbox rows this batch archives. No lock needed: attempts are only written while their row is
     * pending, and these rows are done and locked by the batch.
     */
    private static Uni<Void> archiveAttempts(SqlClient tx, RowSet<Row> events) {
        List<Object> ids = new ArrayList<>();
        for (Row row : events) {
            ids.add(row.getLong("id"));
        }
        return tx.preparedQuery(SELECT_ATTEMPTS.formatted(String.join(", ", Collections.nCopies(ids.size(), "?"))))
                .execute(Tuple.from(ids))
                .flatMap(attempts -> {
                    if (attempts.size() == 0) {
                        return Uni.createFrom().voidItem();
                    }
                    List<Tuple> attemptIds = new ArrayList<>();
                    for (Row attempt : attempts) {
                        attemptIds.add(Tuple.of(attempt.getLong("id")));
                    }
                    return copy(tx, ATTEMPTS, attempts)
                            .chain(() -> tx.preparedQuery(DELETE_ATTEMPT).executeBatch(attemptIds).replaceWithVoid());
                });
    }

    private static Uni<Void> copy(SqlClient tx, String table, RowSet<Row> rows) {
        List<String> columns = rows.columnsNames();
        String insert = "INSERT INTO " + table + "_archive (" + String.join(", ", columns) + ") VALUES ("
                + String.join(", ", Collections.nCopies(columns.size(), "?")) + ")";
        List<Tuple> batch = new ArrayList<>();
        for (Row row : rows) {
            Tuple values = Tuple.tuple();
            for (int column = 0; column < columns.size(); column++) {
                values.addValue(row.getValue(column));
            }
            batch.add(values);
        }
        return tx.preparedQuery(insert).executeBatch(batch).replaceWithVoid();
    }

    private static Uni<Void> delete(SqlClient tx, LeasedTable table, RowStatus status, RowSet<Row> rows) {
        List<Tuple> ids = new ArrayList<>();
        for (Row row : rows) {
            ids.add(Tuple.of(row.getLong("id"), status.code()));
        }
        return tx.preparedQuery(DELETE.formatted(table.table())).executeBatch(ids).replaceWithVoid();
    }

}
