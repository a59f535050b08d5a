package io.paycallback.statement;

import io.paycallback.db.MySqlErrors;
import io.paycallback.lease.RowLease;
import io.paycallback.lease.LeaseLostException;
import io.paycallback.lease.LeasedTable;
import io.paycallback.statement.bill.BillTotals;
import io.paycallback.trade.ChannelId;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.mysqlclient.MySQLClient;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/** The statement_runs table: one leased row per merchant, provider and bill date. */
@ApplicationScoped
public class StatementRuns {

    public static final LeasedTable TABLE = new LeasedTable("statement_runs", "statement-run", LeasedTable.Lateness.SINCE_DUE);

    static final String ENROL = """
            INSERT INTO statement_runs (merchant_id, channel, bill_date, state, status, retry_count, next_retry_at,
                                        created_at, updated_at)
            VALUES (?, ?, ?, 'PENDING', 0, 0, NOW(3), NOW(3), NOW(3))""";
    // A run still pending is queued already (or being worked on): requeueing it would only break its lease.
    static final String RERUN = """
            UPDATE statement_runs SET status = 0, retry_count = 0, next_retry_at = NOW(3), lease_token = NULL,
                last_error = NULL, state = 'PENDING', updated_at = NOW(3)
            WHERE merchant_id = ? AND channel = ? AND bill_date = ? AND status IN (1, 2)""";
    static final String FIND = """
            SELECT id, merchant_id, channel, bill_date, state, file_digest, bill_payment_count, bill_payment_sum,
                   bill_refund_count, bill_refund_sum, our_payment_count, our_payment_sum, our_refund_count, our_refund_sum,
                   lines_compared, compared_at, status, retry_count, last_error, created_at, updated_at
            FROM statement_runs""";
    static final String BY_ID = FIND + " WHERE id = ?";
    static final String BY_DAY = FIND + " WHERE merchant_id = ? AND channel = ? AND bill_date = ?";
    static final String LIST = FIND + " " + """
            WHERE bill_date BETWEEN ? AND ? AND (? IS NULL OR channel = ?) AND (? IS NULL OR merchant_id = ?)
            ORDER BY bill_date DESC, channel, merchant_id LIMIT ?""";
    static final String NEIGHBOURS = """
            SELECT id FROM statement_runs WHERE merchant_id = ? AND channel = ? AND bill_date BETWEEN ? AND ?""";
    static final String EXTEND = """
            UPDATE statement_runs SET next_retry_at = DATE_ADD(NOW(3), INTERVAL ? MICROSECOND), updated_at = NOW(3)
            WHERE id = ? AND lease_token = ? AND status = 0""";
    static final String SET_STATE = """
            UPDATE statement_runs SET state = ?, updated_at = NOW(3) WHERE id = ? AND lease_token = ? AND status = 0""";
    static final String SET_STATE_UNFENCED = "UPDATE statement_runs SET state = ?, updated_at = NOW(3) WHERE id = ?";
    static final String RECORD = """
            UPDATE statement_runs SET state = ?, file_digest = ?, bill_payment_count = ?, bill_payment_sum = ?,
                bill_refund_count = ?, bill_refund_sum = ?, our_payment_count = ?, our_payment_sum = ?,
                our_refund_count = ?, our_refund_sum = ?, lines_compared = ?, compared_at = NOW(3), updated_at = NOW(3)
            WHERE id = ? AND lease_token = ? AND status = 0""";
    static final String LAST_SUCCESS = """
            SELECT channel, TIMESTAMPDIFF(SECOND, MAX(compared_at), NOW(3)) AS age_seconds FROM statement_runs
            WHERE state IN ('MATCHED', 'DIFFERENCES') AND compared_at IS NOT NULL GROUP BY channel""";

    /** A run as stored. Totals are null until the run compared. */
    public record Run(long id, String merchantId, ChannelId channel, LocalDate billDate, RunState state, String fileDigest,
                      BillTotals bill, BillTotals ours, Long linesCompared, LocalDateTime comparedAt, int status,
                      int tries, String lastError, LocalDateTime createdAt, LocalDateTime updatedAt) {
    }

    /** What re-running a date did. */
    public enum Rerun {
        /** No run existed for the date: one was enrolled. */
        ENROLLED,
        /** A finished or dead run was put back to pending, with fresh tries. */
        REQUEUED,
        /** The run is pending already (queued, waiting for the bill, or being worked on). */
        ALREADY_PENDING
    }

    private final Pool pool;

    public StatementRuns(Pool pool) {
        this.pool = pool;
    }

    /** Enrols the run of a day; false when it exists (1062: enrolled already, by us or another instance). */
    public Uni<Boolean> enrol(SqlClient client, String merchantId, ChannelId channel, LocalDate billDate) {
        return client.preparedQuery(ENROL).execute(Tuple.of(merchantId, channel.path(), billDate))
                .map(rows -> rows.<Long>property(MySQLClient.LAST_INSERTED_ID) > 0)
                .onFailure(MySqlErrors::isDuplicateKey).recoverWithItem(false);
    }

    /** Enrols the day's run, or puts a finished or dead one back to pending, inside the caller's transaction. */
    public Uni<Rerun> rerun(SqlClient client, String merchantId, ChannelId channel, LocalDate billDate) {
        return enrol(client, merchantId, channel, billDate).flatMap(enrolled -> enrolled
                ? Uni.createFrom().item(Rerun.ENROLLED)
                : client.preparedQuery(RERUN).execute(Tuple.of(merchantId, channel.path(), billDate))
                .map(rows -> rows.rowCount() == 1 ? Rerun.REQUEUED : Rerun.ALREADY_PENDING));
    }

    public Uni<Run> find(SqlClient client, long id) {
        return client.preparedQuery(BY_ID).execute(Tuple.of(id)).map(rows -> {
            var iterator = rows.iterator();
            if (!iterator.hasNext()) {
                throw new IllegalStateException("statement run #" + id + " is gone");
            }
            return run(iterator.next());
        });
    }

    public Uni<Optional<Run>> find(String merchantId, ChannelId channel, LocalDate billDate) {
        return pool.preparedQuery(BY_DAY).execute(Tuple.of(merchantId, channel.path(), billDate)).map(rows -> {
            var iterator = rows.iterator();
            return iterator.hasNext() ? Optional.of(run(iterator.next())) : Optional.empty();
        });
    }

    /** Runs of the dates from {@code from} to {@code to}, newest date first; channel and merchant optional. */
    public Uni<List<Run>> list(LocalDate from, LocalDate to, ChannelId channel, String merchantId, int limit) {
        String path = channel == null ? null : channel.path();
        return pool.preparedQuery(LIST).execute(Tuple.tuple().addValue(from).addValue(to).addString(path).addString(path)
                .addString(merchantId).addString(merchantId).addInteger(limit)).map(rows -> {
                    List<Run> runs = new ArrayList<>();
                    rows.forEach(row -> runs.add(run(row)));
                    return runs;
                });
    }

    /** The runs of this merchant and provider whose bill dates are within {@code days} of the date (itself included). */
    public Uni<List<Long>> neighbours(SqlClient client, Run run, long days) {
        return client.preparedQuery(NEIGHBOURS).execute(Tuple.of(run.merchantId(), run.channel().path(),
                run.billDate().minusDays(days), run.billDate().plusDays(days))).map(rows -> {
                    List<Long> ids = new ArrayList<>();
                    rows.forEach(row -> ids.add(row.getLong("id")));
                    return ids;
                });
    }

    /** Keeps the lease for {@code time} from now; fails with {@link LeaseLostException} if it is gone. */
    public Uni<Void> extend(SqlClient client, RowLease lease, Duration time) {
        return fenced(client, EXTEND, Tuple.of(TimeUnit.MICROSECONDS.convert(time), lease.id(), lease.token()), lease);
    }

    public Uni<Void> state(SqlClient client, RowLease lease, RunState state) {
        return fenced(client, SET_STATE, Tuple.of(state.name(), lease.id(), lease.token()), lease);
    }

    /** Sets the state of a row the caller no longer holds by lease (after a failed try, inside its reschedule). */
    public Uni<Void> stateOf(SqlClient client, long id, RunState state) {
        return client.preparedQuery(SET_STATE_UNFENCED).execute(Tuple.of(state.name(), id)).replaceWithVoid();
    }

    /** Records what the comparison found, inside the transaction that finishes the lease. */
    public Uni<Void> record(SqlClient client, RowLease lease, RunState state, String digest, BillTotals bill,
                            BillTotals ours, long linesCompared) {
        Tuple values = Tuple.tuple().addString(state.name()).addString(digest)
                .addLong(bill.paymentCount()).addBigDecimal(bill.paymentSum())
                .addLong(bill.refundCount()).addBigDecimal(bill.refundSum())
                .addLong(ours.paymentCount()).addBigDecimal(ours.paymentSum())
                .addLong(ours.refundCount()).addBigDecimal(ours.refundSum())
                .addLong(linesCompared).addLong(lease.id()).addString(lease.token());
        return fenced(client, RECORD, values, lease);
    }

    /** The last time a run of each provider compared its bill. */
    public Uni<List<LastSuccess>> lastSuccesses() {
        return pool.preparedQuery(LAST_SUCCESS).execute().map(rows -> {
            List<LastSuccess> last = new ArrayList<>();
            rows.forEach(row -> ChannelId.fromPath(row.getString("channel"))
                    .ifPresent(channel -> last.add(new LastSuccess(channel, row.getLong("age_seconds")))));
            return last;
        });
    }

    /** How many seconds ago a run of the provider last compared its bill, by the database's clock. */
    public record LastSuccess(ChannelId channel, long ageSeconds) {
    }

    private static Uni<Void> fenced(SqlClient client, String sql, Tuple params, RowLease lease) {
        return client.preparedQuery(sql).execute(params).map(updated -> {
            if (updated.rowCount() != 1) {
                throw new LeaseLostException(lease);
            }
            return null;
        });
    }

    static Run run(Row row) {
        return new Run(row.getLong("id"), row.getString("merchant_id"),
                ChannelId.fromPath(row.getString("channel")).orElseThrow(), row.getLocalDate("bill_date"),
                RunState.stored(row.getString("state")), row.getString("file_digest"),
                totals(row, "bill_"), totals(row, "our_"), row.getLong("lines_compared"),
                row.getLocalDateTime("compared_at"), row.getInteger("status"), row.getInteger("retry_count"),
                row.getString("last_error"), row.getLocalDateTime("created_at"), row.getLocalDateTime("updated_at"));
    }

    private static BillTotals totals(Row row, String prefix) {
        Long payments = row.getLong(prefix + "payment_count");
        if (payments == null) {
            return null;
        }
        return new BillTotals(payments, scaled(row.getBigDecimal(prefix + "payment_sum")),
                row.getLong(prefix + "refund_count"), scaled(row.getBigDecimal(prefix + "refund_sum")));
    }

    private static BigDecimal scaled(BigDecimal value) {
        return value == null ? null : value.setScale(2);
    }
}
