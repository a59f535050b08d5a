package io.paycallback.lease;

import io.paycallback.db.MySqlErrors;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The lease statements: lease, finish, reschedule and bury rows of any {@link LeasedTable}. Time is the database's
 * ({@code NOW(3)}), so instances with drifting clocks still agree on what is due. Losing a race for a lease is not an
 * error: it just yields nothing. Every write after the lease is fenced by the token and by {@code status = 0}.
 */
@ApplicationScoped
public class LeaseStatements {

    private static final String LEASE_DUE = """
            UPDATE %s SET lease_token = ?, next_retry_at = DATE_ADD(NOW(3), INTERVAL ? MICROSECOND), updated_at = NOW(3)
            WHERE status = 0 AND next_retry_at <= NOW(3) ORDER BY next_retry_at LIMIT ?""";
    // A lane's due rows are a range of an index led by its column, (lane, status, next_retry_at).
    private static final String LEASE_DUE_IN_LANE = """
            UPDATE %s SET lease_token = ?, next_retry_at = DATE_ADD(NOW(3), INTERVAL ? MICROSECOND), updated_at = NOW(3)
            WHERE %s = ? AND status = 0 AND next_retry_at <= NOW(3) ORDER BY next_retry_at LIMIT ?""";
    private static final String LEASE_DUE_OUTSIDE_LANES = """
            UPDATE %s SET lease_token = ?, next_retry_at = DATE_ADD(NOW(3), INTERVAL ? MICROSECOND), updated_at = NOW(3)
            WHERE status = 0 AND next_retry_at <= NOW(3) AND %s NOT IN (%s) ORDER BY next_retry_at LIMIT ?""";
    private static final String LEASED_BY = "SELECT id, retry_count FROM %s WHERE lease_token = ? AND status = 0";
    private static final String LEASE_ONE = """
            UPDATE %s SET lease_token = ?, next_retry_at = DATE_ADD(NOW(3), INTERVAL ? MICROSECOND), updated_at = NOW(3)
            WHERE id = ? AND status = 0 AND next_retry_at <= NOW(3)""";
    private static final String RETRY_COUNT = "SELECT retry_count FROM %s WHERE id = ? AND lease_token = ?";
    private static final String FINISH = """
            UPDATE %s SET status = 1, lease_token = NULL, last_error = NULL, updated_at = NOW(3)
            WHERE id = ? AND lease_token = ? AND status = 0""";
    // No "status = 0" here, unlike the one-row statements: with it, MariaDB picks the (status, next_retry_at) index
    // and walks every pending row. It adds nothing: only a pending row ever carries a token.
    // The ids before the pairs: given a single pair, MariaDB 10.11 reads "(id, lease_token) IN ((?, ?))" as a walk of
    // the whole primary key (EXPLAIN type "index"), locking every row of the table; a delivered event finished alone
    // did so on the outbox under load, stalling and deadlocking every other writer. "id IN" is a key range at any size.
    // The second %s: what the handler sets on each row besides, one CASE over the ids per column.
    static final String FINISH_ALL = """
            UPDATE %s SET status = 1, lease_token = NULL, last_error = NULL, updated_at = NOW(3)%s
            WHERE id IN (%s) AND (id, lease_token) IN (%s)""";
    // Filled per batch by hand, not with String.formatted: C2 inlines java.util.Formatter into finishAll, which made
    // it the JIT's largest compilation (34-39 MB of arena, kept by glibc afterwards; see docs/performance.md).
    private static final String[] FINISH_ALL_PARTS = FINISH_ALL.split("%s", -1);
    private static final String RELEASE = """
            UPDATE %s SET next_retry_at = DATE_ADD(NOW(3), INTERVAL ? MICROSECOND), lease_token = NULL, last_error = ?,
                updated_at = NOW(3)
            WHERE id = ? AND lease_token = ? AND status = 0""";
    private static final String RESCHEDULE = """
            UPDATE %s SET retry_count = retry_count + 1, next_retry_at = DATE_ADD(NOW(3), INTERVAL ? MICROSECOND),
                lease_token = NULL, last_error = ?, updated_at = NOW(3)
            WHERE id = ? AND lease_token = ? AND status = 0""";
    private static final String BURY = """
            UPDATE %s SET status = 2, retry_count = retry_count + 1, lease_token = NULL, last_error = ?, updated_at = NOW(3)
            WHERE id = ? AND lease_token = ? AND status = 0""";

    private static final String REQUEUE = """
            UPDATE %s SET status = 0, retry_count = 0, next_retry_at = NOW(3), lease_token = NULL, last_error = NULL,
                updated_at = NOW(3)
            WHERE id = ? AND status = 2""";

    private static final int ERROR_LENGTH = 500;
    private static final int LOCK_CONTEST_RETRIES = 2;

    private final Pool pool;
    private final Map<LeasedTable, Statements> statements = new ConcurrentHashMap<>();

    public LeaseStatements(Pool pool) {
        this.pool = pool;
    }

    /**
     * Leases up to {@code limit} due rows, oldest due first, with one statement. Another instance's scan or a batch's
     * finish can meet it in a deadlock over the index range; that is a race, not an error: the statement is tried
     * again a couple of times, then this scan leases nothing and the next one looks again.
     */
    public Uni<List<RowLease>> leaseDue(LeasedTable table, int limit, Duration leaseTime) {
        return leaseDue(table, leaseTime, statements(table).leaseDue, Tuple.of(limit));
    }

    /**
     * {@link #leaseDue(LeasedTable, int, Duration)} of one lane's rows only, except that a race lost every time it was
     * tried fails (a lock contest, {@link MySqlErrors#isLockContest}) instead of leasing nothing: the lane's rows are due,
     * and the caller must see that they are still to be leased.
     */
    public Uni<List<RowLease>> leaseDue(LeasedTable table, int limit, Duration leaseTime, Lanes lanes, String lane) {
        return leaseOrContest(table, leaseTime, LEASE_DUE_IN_LANE.formatted(table.table(), lanes.column()),
                Tuple.of(lane, limit));
    }

    /** {@link #leaseDue(LeasedTable, int, Duration)} of the rows of none of the lanes. */
    public Uni<List<RowLease>> leaseDueOutside(LeasedTable table, int limit, Duration leaseTime, Lanes lanes) {
        if (lanes.room().isEmpty()) {
            return leaseDue(table, limit, leaseTime);
        }
        Tuple params = Tuple.tuple();
        lanes.room().keySet().forEach(params::addString);
        return leaseDue(table, leaseTime, LEASE_DUE_OUTSIDE_LANES.formatted(table.table(), lanes.column(),
                String.join(", ", Collections.nCopies(lanes.room().size(), "?"))), params.addInteger(limit));
    }

    private Uni<List<RowLease>> leaseDue(LeasedTable table, Duration leaseTime, String leaseSql, Tuple params) {
        return leaseOrContest(table, leaseTime, leaseSql, params).onFailure(MySqlErrors::isLockContest).recoverWithItem(List.of());
    }

    /** Fails with the lock contest when the statement lost its race every time it was tried. */
    private Uni<List<RowLease>> leaseOrContest(LeasedTable table, Duration leaseTime, String leaseSql, Tuple params) {
        String token = UUID.randomUUID().toString();
        Statements sql = statements(table);
        Tuple values = Tuple.of(token, TimeUnit.MICROSECONDS.convert(leaseTime));
        for (int i = 0; i < params.size(); i++) {
            values.addValue(params.getValue(i));
        }
        return pool.preparedQuery(leaseSql).execute(values)
                .onFailure(MySqlErrors::isLockContest).retry().atMost(LOCK_CONTEST_RETRIES)
                .flatMap(updated -> updated.rowCount() == 0
                        ? Uni.createFrom().item(List.<RowLease>of())
                        : pool.preparedQuery(sql.leasedBy).execute(Tuple.of(token)).map(rows -> {
                            List<RowLease> leases = new ArrayList<>();
                            for (Row row : rows) {
                                leases.add(new RowLease(table, row.getLong("id"), token, row.getInteger("retry_count")));
                            }
                            return leases;
                        }));
    }

    /** Leases one row if it is due; empty when somebody else has it or it is done. */
    public Uni<Optional<RowLease>> leaseOne(LeasedTable table, long id, Duration leaseTime) {
        String token = UUID.randomUUID().toString();
        Statements sql = statements(table);
        return pool.preparedQuery(sql.leaseOne).execute(Tuple.of(token, TimeUnit.MICROSECONDS.convert(leaseTime), id))
                .flatMap(updated -> updated.rowCount() == 0
                        ? Uni.createFrom().item(Optional.<RowLease>empty())
                        : pool.preparedQuery(sql.retryCount).execute(Tuple.of(id, token))
                        .map(rows -> {
                            var iterator = rows.iterator();
                            return iterator.hasNext()
                                    ? Optional.of(new RowLease(table, id, token, iterator.next().getInteger(0)))
                                    : Optional.<RowLease>empty();
                        }));
    }

    /** Marks the row done, inside the caller's transaction; fails with {@link LeaseLostException} if the lease is gone. */
    public Uni<Void> finish(SqlClient client, RowLease lease) {
        return fenced(client, statements(lease.table()).finish, Tuple.of(lease.id(), lease.token()), lease);
    }

    /**
     * Marks every row done with one statement, fenced per row by its own token: fails with {@link LeaseLostException}
     * (and the caller's transaction must roll back) unless every one of them was still held.
     */
    public Uni<Void> finishAll(SqlClient client, List<RowLease> held) {
        if (held.size() == 1) {
            return finish(client, held.get(0));
        }
        return finishAll(client, List.of(), held.stream().map(lease -> new Finishing(lease, List.of())).toList());
    }

    /**
     * {@link #finishAll(SqlClient, List)}, and in the same statement sets each of {@code columns} on every row to that
     * row's own value, so what a handler keeps of the outcome costs no statement of its own.
     */
    public Uni<Void> finishAll(SqlClient client, List<RowColumn> columns, List<Finishing> rows) {
        LeasedTable table = rows.get(0).lease().table();
        Tuple params = Tuple.tuple();
        StringBuilder sets = new StringBuilder();
        for (int column = 0; column < columns.size(); column++) {
            StringBuilder perRow = new StringBuilder("CASE id");
            for (Finishing row : rows) {
                perRow.append(" WHEN ? THEN ?");
                params.addLong(row.lease().id()).addValue(row.values().get(column));
            }
            sets.append(", ").append(columns.get(column).name()).append(" = ")
                    .append(columns.get(column).expression().replace("%s", perRow.append(" END")));
        }
        for (Finishing row : rows) {
            if (row.lease().table() != table) {
                throw new IllegalArgumentException(
                        "leases of " + table + " and " + row.lease().table() + " in one finish");
            }
            if (row.values().size() != columns.size()) {
                throw new IllegalArgumentException(row.values().size() + " values for " + columns.size() + " columns");
            }
            params.addLong(row.lease().id());
        }
        rows.forEach(row -> params.addLong(row.lease().id()).addString(row.lease().token()));
        return client.preparedQuery(finishAllSql(table.table(), sets, rows.size())).execute(params).map(updated -> {
            if (updated.rowCount() != rows.size()) {
                throw new LeaseLostException(rows.size() - updated.rowCount() + " of " + rows.size()
                        + " leases on " + table.table() + " are no longer held");
            }
            return null;
        });
    }

    /** {@link #FINISH_ALL} for {@code rows} rows of {@code table}, with {@code sets} after the lease's own columns. */
    static String finishAllSql(String table, CharSequence sets, int rows) {
        CharSequence[] values = {table, sets, String.join(", ", Collections.nCopies(rows, "?")),
                String.join(", ", Collections.nCopies(rows, "(?, ?)"))};
        StringBuilder sql = new StringBuilder(FINISH_ALL_PARTS[0]);
        for (int i = 0; i < values.length; i++) {
            sql.append(values[i]).append(FINISH_ALL_PARTS[i + 1]);
        }
        return sql.toString();
    }

    /**
     * A column a finish sets besides the lease's own.
     *
     * @param expression SQL with {@code %s} where the row's own value goes, e.g. {@code "%s"} for the value itself
     */
    public record RowColumn(String name, String expression) {
    }

    /** A held row to finish and its values for the finish's {@link RowColumn}s, in their order. */
    public record Finishing(RowLease lease, List<Object> values) {
    }

    /**
     * Gives the row back for another try after {@code delay} without counting this one: the try lost a lock contest
     * (a deadlock, a lock wait timeout), which says nothing about the row.
     */
    public Uni<Void> release(SqlClient client, RowLease lease, Duration delay, String error) {
        return fenced(client, statements(lease.table()).release,
                Tuple.of(TimeUnit.MICROSECONDS.convert(delay), truncate(error), lease.id(), lease.token()), lease);
    }

    /** Counts a failed try and sets the next one {@code delay} from now. */
    public Uni<Void> reschedule(SqlClient client, RowLease lease, Duration delay, String error) {
        return fenced(client, statements(lease.table()).reschedule,
                Tuple.of(TimeUnit.MICROSECONDS.convert(delay), truncate(error), lease.id(), lease.token()), lease);
    }

    /** Gives up on the row: status 2, a dead letter for a person. */
    public Uni<Void> bury(SqlClient client, RowLease lease, String error) {
        return fenced(client, statements(lease.table()).bury, Tuple.of(truncate(error), lease.id(), lease.token()), lease);
    }

    /** An operator's second chance for a dead letter: pending again, with a fresh set of tries (caller's transaction). */
    public Uni<Boolean> requeue(SqlClient client, LeasedTable table, long id) {
        return client.preparedQuery(statements(table).requeue).execute(Tuple.of(id)).map(rows -> rows.rowCount() == 1);
    }

    private Statements statements(LeasedTable table) {
        return statements.computeIfAbsent(table, named -> new Statements(named.table()));
    }

    private static Uni<Void> fenced(SqlClient client, String sql, Tuple params, RowLease lease) {
        return client.preparedQuery(sql).execute(params).map(updated -> {
            if (updated.rowCount() != 1) {
                throw new LeaseLostException(lease);
            }
            return null;
        });
    }


    private static String truncate(String error) {
        String text = error == null ? "unknown error" : error;
        return text.length() > ERROR_LENGTH ? text.substring(0, ERROR_LENGTH) : text;
    }

    private static final class Statements {
        final String leaseDue;
        final String leasedBy;
        final String leaseOne;
        final String retryCount;
        final String finish;
        final String release;
        final String reschedule;
        final String bury;
        final String requeue;

        Statements(String table) {
            leaseDue = LEASE_DUE.formatted(table);
            leasedBy = LEASED_BY.formatted(table);
            leaseOne = LEASE_ONE.formatted(table);
            retryCount = RETRY_COUNT.formatted(table);
            finish = FINISH.formatted(table);
            release = RELEASE.formatted(table);
            reschedule = RESCHEDULE.formatted(table);
            bury = BURY.formatted(table);
            requeue = REQUEUE.formatted(table);
        }
    }
}
