package io.paycallback.statement;

import io.paycallback.config.DatabaseConfig;
import io.paycallback.statement.bill.BillException;
import io.paycallback.statement.bill.BillLine;
import io.smallrye.common.annotation.Identifier;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;

/**
 * The statement_lines staging table: a bill's lines, written while the file streams in with one multi-row INSERT per
 * batch, so a million-line bill never sits in memory and costs a few thousand statements, not a million.
 */
@ApplicationScoped
public class StatementLines {

    static final String INSERT = """
            INSERT INTO statement_lines (run_id, line_no, item, ident, out_trade_no, trade_no, refund_no, refund_id,
                                         amount, currency, state)
            VALUES """;
    static final String ROW = "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
    // In batches: one DELETE of a million rows would be one huge transaction holding its locks throughout.
    static final String DELETE_RUN = "DELETE FROM statement_lines WHERE run_id = ? LIMIT ?";
    static final String AGED_RUNS = """
            SELECT DISTINCT r.id FROM statement_runs r
            WHERE r.merchant_id = ? AND r.channel = ? AND r.bill_date < ?
              AND EXISTS (SELECT 1 FROM statement_lines l WHERE l.run_id = r.id)""";

    static final int DELETE_BATCH = 10_000;
    private static final int IDENT_LENGTH = 64;

    private final Pool pool;

    /** @param pool for the deletes of a run's lines, ten thousand per statement: the bulk bound's */
    public StatementLines(@Identifier(DatabaseConfig.BULK_POOL) Pool pool) {
        this.pool = pool;
    }

    /**
     * The column values of one line; refuses a line whose identities do not fit the ledger's columns.
     *
     * @param lineNo the line's number in the run (its place in the bill, counted across pages)
     */
    static Tuple row(long runId, long lineNo, BillLine line) throws BillException {
        boolean payment = line.kind() == BillLine.Kind.PAYMENT;
        String ident = payment ? line.providerTradeNo()
                : line.refundNo() != null ? line.refundNo() : line.providerRefundNo();
        if (ident == null || ident.isEmpty()) {
            throw new BillException.Malformed("line " + line.line() + ": a " + (payment ? "payment without the provider's"
                    + " trade number" : "refund without a refund number or the provider's refund id"));
        }
        for (String id : List.of(ident, nullToEmpty(line.outTradeNo()), nullToEmpty(line.providerTradeNo()),
                nullToEmpty(line.refundNo()), nullToEmpty(line.providerRefundNo()))) {
            if (id.length() > IDENT_LENGTH) {
                throw new BillException.Malformed("line " + line.line() + ": an identity longer than " + IDENT_LENGTH);
            }
        }
        return Tuple.tuple().addLong(runId).addLong(lineNo).addString(payment ? "P" : "R").addString(ident)
                .addString(line.outTradeNo()).addString(line.providerTradeNo()).addString(line.refundNo())
                .addString(line.providerRefundNo()).addBigDecimal(line.amount()).addString(line.currency())
                .addString(line.state().name());
    }

    /** Writes staged rows with one statement. */
    Uni<Void> insert(SqlClient client, List<Tuple> rows) {
        StringBuilder sql = new StringBuilder(INSERT.length() + rows.size() * (ROW.length() + 2)).append(INSERT);
        Tuple params = Tuple.tuple();
        for (int i = 0; i < rows.size(); i++) {
            sql.append(i == 0 ? "" : ", ").append(ROW);
            Tuple row = rows.get(i);
            for (int column = 0; column < row.size(); column++) {
                params.addValue(row.getValue(column));
            }
        }
        return client.preparedQuery(sql.toString()).execute(params).replaceWithVoid();
    }

    /** Deletes a run's staged lines, batch by batch; blocking, on a worker thread. */
    public long deleteRun(long runId, Duration timeout) {
        long deleted = 0;
        int batch;
        do {
            batch = pool.preparedQuery(DELETE_RUN).execute(Tuple.of(runId, DELETE_BATCH)).await().atMost(timeout).rowCount();
            deleted += batch;
        } while (batch == DELETE_BATCH);
        return deleted;
    }

    /**
     * Deletes the staged lines of this merchant's and provider's runs dated before {@code before}: past the cross-day
     * window no comparison looks at them again.
     */
    public void deleteAged(String merchantId, String channel, LocalDate before, Duration timeout) {
        List<Long> runs = pool.preparedQuery(AGED_RUNS).execute(Tuple.of(merchantId, channel, before))
                .map(rows -> {
                    List<Long> ids = new ArrayList<>();
                    rows.forEach(row -> ids.add(row.getLong("id")));
                    return ids;
                }).await().atMost(timeout);
        runs.forEach(run -> deleteRun(run, timeout));
    }

    private static String nullToEmpty(String value) {
        return value == null ? "" : value;
    }
}
