package io.paycallback.statement;

import io.paycallback.db.MySqlErrors;
import io.paycallback.statement.StatementRuns.Run;
import io.paycallback.statement.bill.BillTotals;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;

import java.math.BigDecimal;
import java.time.LocalDateTime;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The comparison of a run's staged lines with the ledger, as a few set-based statements: each joins every line of the
 * run to the ledger once through its unique keys (orders, refunds, and the payment logs, live and archived) and writes
 * only what differs. Never one query per line. Runs in one transaction at READ COMMITTED, so the joins read the
 * ledger without locking it against the transitions going on meanwhile.
 *
 * <p>A payment line is held here when a processed payment (log status done or compacted, live or archived) has its
 * trade number; a refund line when our refund with its number (or the provider's refund id) SUCCEEDED. Duplicates of
 * an identity in one bill are folded by the GROUP BY, so the unique key of a discrepancy never fails the statement.
 */
@ApplicationScoped
public class Comparison {

    // Recomputed on every try: what an operator resolved, and what was repaired, stays.
    static final String DELETE_RECOMPUTED = """
            DELETE FROM statement_discrepancies WHERE run_id = ? AND state IN ('WAITING', 'OPEN')""";

    static final String PAYMENT_LINES = """
            INSERT INTO statement_discrepancies (run_id, merchant_id, channel, bill_date, kind, item, ident, out_trade_no,
                trade_no, bill_amount, bill_currency, bill_state, our_amount, our_currency, our_state, state, opened_at,
                created_at, updated_at)
            SELECT ?, ?, ?, ?, f.kind, 'PAYMENT', f.ident, MIN(f.out_trade_no), MIN(f.trade_no), MIN(f.amount),
                   MIN(f.currency), MIN(f.state), MIN(f.our_amount), MIN(f.our_currency), MIN(f.our_state), 'OPEN',
                   NOW(3), NOW(3), NOW(3)
            FROM (SELECT l.ident, COALESCE(l.out_trade_no, c.out_trade_no, a.out_trade_no) AS out_trade_no, l.trade_no,
                         l.amount, l.currency, l.state,
                         COALESCE(c.amount, a.amount, o.amount) AS our_amount,
                         UPPER(COALESCE(c.currency, a.currency, o.currency)) AS our_currency,
                         CASE WHEN c.id IS NOT NULL OR a.id IS NOT NULL THEN 'PAID' ELSE o.status END AS our_state,
                         CASE
                           WHEN c.id IS NOT NULL OR a.id IS NOT NULL THEN
                             CASE WHEN l.state = 'REVOKED' THEN 'STATE_DIFFERS'
                                  WHEN l.amount <> COALESCE(c.amount, a.amount)
                                    OR l.currency <> UPPER(COALESCE(c.currency, a.currency)) THEN 'AMOUNT_DIFFERS'
                             END
                           WHEN l.state = 'REVOKED' THEN NULL
                           WHEN o.id IS NULL THEN 'NOT_REGISTERED'
                           WHEN l.amount <> o.amount OR l.currency <> UPPER(o.currency) THEN 'AMOUNT_DIFFERS'
                           ELSE 'MISSING_HERE'
                         END AS kind
                  FROM statement_lines l
                  LEFT JOIN pay_callback_log c ON c.merchant_id = ? AND c.channel = ? AND c.channel_trade_no = l.trade_no
                                              AND c.status IN (1, 3)
                  LEFT JOIN pay_callback_log_archive a ON a.merchant_id = ? AND a.channel = ?
                                              AND a.channel_trade_no = l.trade_no AND a.status IN (1, 3)
                  LEFT JOIN orders o ON o.merchant_id = ?
                                    AND o.out_trade_no = COALESCE(l.out_trade_no, c.out_trade_no, a.out_trade_no)
                  WHERE l.run_id = ? AND l.item = 'P') f
            WHERE f.kind IS NOT NULL
              AND NOT EXISTS (SELECT 1 FROM statement_discrepancies x
                              WHERE x.run_id = ? AND x.kind = f.kind AND x.item = 'PAYMENT' AND x.ident = f.ident)
            GROUP BY f.kind, f.ident""";

    // A refund still PROCESSING in the bill is no difference while we know the refund: the bill is frozen when made,
    // and the submission loop asks about it. A FAILED one is no difference unless we hold it as SUCCEEDED.
    static final String REFUND_LINES = """
            INSERT INTO statement_discrepancies (run_id, merchant_id, channel, bill_date, kind, item, ident, out_trade_no,
                trade_no, refund_no, refund_id, bill_amount, bill_currency, bill_state, our_amount, our_currency, our_state,
                state, opened_at, created_at, updated_at)
            SELECT ?, ?, ?, ?, f.kind, 'REFUND', f.ident, MIN(f.out_trade_no), MIN(f.trade_no), MIN(f.refund_no),
                   MIN(f.refund_id), MIN(f.amount), MIN(f.currency), MIN(f.state), MIN(f.our_amount), MIN(f.our_currency),
                   MIN(f.our_state), 'OPEN', NOW(3), NOW(3), NOW(3)
            FROM (SELECT l.ident, COALESCE(l.out_trade_no, r.out_trade_no, q.out_trade_no, c.out_trade_no) AS out_trade_no,
                         COALESCE(l.trade_no, r.channel_trade_no, q.channel_trade_no) AS trade_no,
                         COALESCE(l.refund_no, r.refund_no, q.refund_no) AS refund_no,
                         COALESCE(l.refund_id, r.channel_refund_id, q.channel_refund_id) AS refund_id,
                         l.amount, l.currency, l.state,
                         COALESCE(r.amount, q.amount) AS our_amount, UPPER(COALESCE(r.currency, q.currency)) AS our_currency,
                         COALESCE(r.status, q.status) AS our_state,
                         CASE
                           WHEN COALESCE(r.status, q.status) = 'SUCCEEDED' THEN
                             CASE WHEN l.state = 'FAILED' THEN 'STATE_DIFFERS'
                                  WHEN l.currency <> UPPER(COALESCE(r.currency, q.currency))
                                    OR l.amount <> COALESCE(r.amount, q.amount) THEN 'AMOUNT_DIFFERS'
                             END
                           WHEN l.state = 'FAILED' THEN NULL
                           WHEN l.state = 'PROCESSING' AND COALESCE(r.id, q.id) IS NOT NULL THEN NULL
                           WHEN COALESCE(r.id, q.id) IS NULL AND o.id IS NULL THEN 'NOT_REGISTERED'
                           ELSE 'MISSING_HERE'
                         END AS kind
                  FROM statement_lines l
                  LEFT JOIN refunds r ON r.merchant_id = ? AND r.channel = ? AND r.refund_no = l.ident
                  LEFT JOIN refunds q ON r.id IS NULL AND q.merchant_id = ? AND q.channel = ?
                                     AND q.channel_refund_id = l.refund_id
                  LEFT JOIN pay_callback_log c ON l.out_trade_no IS NULL AND c.merchant_id = ? AND c.channel = ?
                                              AND c.channel_trade_no = l.trade_no
                  LEFT JOIN orders o ON o.merchant_id = ?
                                    AND o.out_trade_no = COALESCE(l.out_trade_no, r.out_trade_no, q.out_trade_no, c.out_trade_no)
                  WHERE l.run_id = ? AND l.item = 'R') f
            WHERE f.kind IS NOT NULL
              AND NOT EXISTS (SELECT 1 FROM statement_discrepancies x
                              WHERE x.run_id = ? AND x.kind = f.kind AND x.item = 'REFUND' AND x.ident = f.ident)
            GROUP BY f.kind, f.ident""";

    // Our payments of the day that no staged bill of the neighbouring days lists (%s: those runs' ids), and that no run
    // found missing here (a payment we learned of late, by a repair, is dated by when we stored it).
    static final String PAYMENT_CANDIDATES = """
            INSERT INTO statement_discrepancies (run_id, merchant_id, channel, bill_date, kind, item, ident, out_trade_no,
                trade_no, our_amount, our_currency, our_state, state, due_at, created_at, updated_at)
            SELECT ?, ?, ?, ?, 'MISSING_AT_PROVIDER', 'PAYMENT', p.channel_trade_no, MIN(p.out_trade_no), p.channel_trade_no,
                   MIN(p.amount), UPPER(MIN(p.currency)), 'PAID', 'WAITING', ?, NOW(3), NOW(3)
            FROM (SELECT channel_trade_no, out_trade_no, amount, currency FROM pay_callback_log
                  WHERE merchant_id = ? AND channel = ? AND created_at >= ? AND created_at < ? AND status IN (1, 3)
                  UNION ALL
                  SELECT channel_trade_no, out_trade_no, amount, currency FROM pay_callback_log_archive
                  WHERE merchant_id = ? AND channel = ? AND created_at >= ? AND created_at < ? AND status IN (1, 3)) p
            WHERE NOT EXISTS (SELECT 1 FROM statement_lines l
                              WHERE l.run_id IN (%s) AND l.item = 'P' AND l.ident = p.channel_trade_no)
              AND NOT EXISTS (SELECT 1 FROM statement_discrepancies x
                              WHERE x.merchant_id = ? AND x.channel = ? AND x.item = 'PAYMENT' AND x.ident = p.channel_trade_no
                                AND (x.kind IN ('MISSING_HERE', 'NOT_REGISTERED')
                                     OR (x.run_id = ? AND x.kind = 'MISSING_AT_PROVIDER')))
            GROUP BY p.channel_trade_no""";

    static final String REFUND_CANDIDATES = """
            INSERT INTO statement_discrepancies (run_id, merchant_id, channel, bill_date, kind, item, ident, out_trade_no,
                trade_no, refund_no, refund_id, our_amount, our_currency, our_state, state, due_at, created_at, updated_at)
            SELECT ?, ?, ?, ?, 'MISSING_AT_PROVIDER', 'REFUND', r.refund_no, r.out_trade_no, r.channel_trade_no,
                   r.refund_no, r.channel_refund_id, r.amount, UPPER(r.currency), r.status, 'WAITING', ?, NOW(3), NOW(3)
            FROM refunds r
            WHERE r.merchant_id = ? AND r.channel = ? AND r.status = 'SUCCEEDED' AND r.updated_at >= ? AND r.updated_at < ?
              AND NOT EXISTS (SELECT 1 FROM statement_lines l WHERE l.run_id IN (%1$s) AND l.item = 'R' AND l.ident = r.refund_no)
              AND (r.channel_refund_id IS NULL
                   OR NOT EXISTS (SELECT 1 FROM statement_lines l
                                  WHERE l.run_id IN (%1$s) AND l.item = 'R' AND l.ident = r.channel_refund_id))
              AND NOT EXISTS (SELECT 1 FROM statement_discrepancies x
                              WHERE x.merchant_id = ? AND x.channel = ? AND x.item = 'REFUND' AND x.ident = r.refund_no
                                AND (x.kind IN ('MISSING_HERE', 'NOT_REGISTERED')
                                     OR (x.run_id = ? AND x.kind = 'MISSING_AT_PROVIDER')))""";

    // A later (or earlier) bill that lists what another day's run found missing at the provider settles it.
    static final String LISTED_ELSEWHERE = """
            UPDATE statement_discrepancies d
            SET d.state = 'RESOLVED', d.note = ?, d.resolved_by = 'statement', d.resolved_at = NOW(3), d.updated_at = NOW(3)
            WHERE d.merchant_id = ? AND d.channel = ? AND d.kind = 'MISSING_AT_PROVIDER' AND d.state IN ('WAITING', 'OPEN')
              AND d.run_id <> ?
              AND EXISTS (SELECT 1 FROM statement_lines l
                          WHERE l.run_id = ? AND l.item = LEFT(d.item, 1) AND l.ident = d.ident)""";

    static final String OPEN_DUE = """
            UPDATE statement_discrepancies SET state = 'OPEN', opened_at = NOW(3), updated_at = NOW(3)
            WHERE state = 'WAITING' AND due_at <= NOW(3)""";

    static final String OUR_PAYMENTS = """
            SELECT COUNT(*) AS n, COALESCE(SUM(amount), 0) AS total
            FROM (SELECT amount FROM pay_callback_log
                  WHERE merchant_id = ? AND channel = ? AND created_at >= ? AND created_at < ? AND status IN (1, 3)
                  UNION ALL
                  SELECT amount FROM pay_callback_log_archive
                  WHERE merchant_id = ? AND channel = ? AND created_at >= ? AND created_at < ? AND status IN (1, 3)) p""";
    static final String OUR_REFUNDS = """
            SELECT COUNT(*) AS n, COALESCE(SUM(amount), 0) AS total FROM refunds
            WHERE merchant_id = ? AND channel = ? AND status = 'SUCCEEDED' AND updated_at >= ? AND updated_at < ?""";
    static final String OPEN_OF_RUN = "SELECT COUNT(*) FROM statement_discrepancies WHERE run_id = ? AND state = 'OPEN'";

    /**
     * The run's day as the database's clock writes times ({@code NOW(3)}), and when what is missing at the provider
     * becomes a discrepancy.
     */
    record Day(LocalDateTime from, LocalDateTime to, LocalDateTime due) {
    }

    /** Compares the run's staged lines with the ledger, in the caller's transaction. */
    Uni<Void> compare(SqlClient tx, Run run, Day day, List<Long> neighbourRuns) {
        String merchant = run.merchantId();
        String channel = run.channel().path();
        String runs = neighbourRuns.stream().map(id -> "?").collect(Collectors.joining(", "));
        Tuple head = Tuple.of(run.id(), merchant, channel, run.billDate());
        Tuple payments = copy(head).addString(merchant).addString(channel).addString(merchant).addString(channel)
                .addString(merchant).addLong(run.id()).addLong(run.id());
        Tuple refunds = copy(head).addString(merchant).addString(channel).addString(merchant).addString(channel)
                .addString(merchant).addString(channel).addString(merchant).addLong(run.id()).addLong(run.id());
        Tuple paymentCandidates = copy(head).addValue(day.due())
                .addString(merchant).addString(channel).addValue(day.from()).addValue(day.to())
                .addString(merchant).addString(channel).addValue(day.from()).addValue(day.to());
        neighbourRuns.forEach(paymentCandidates::addLong);
        paymentCandidates.addString(merchant).addString(channel).addLong(run.id());
        Tuple refundCandidates = copy(head).addValue(day.due())
                .addString(merchant).addString(channel).addValue(day.from()).addValue(day.to());
        neighbourRuns.forEach(refundCandidates::addLong);
        neighbourRuns.forEach(refundCandidates::addLong);
        refundCandidates.addString(merchant).addString(channel).addLong(run.id());
        return tx.preparedQuery(DELETE_RECOMPUTED).execute(Tuple.of(run.id()))
                .chain(() -> tx.preparedQuery(PAYMENT_LINES).execute(payments))
                .chain(() -> tx.preparedQuery(REFUND_LINES).execute(refunds))
                .chain(() -> tx.preparedQuery(PAYMENT_CANDIDATES.formatted(runs)).execute(paymentCandidates))
                .chain(() -> tx.preparedQuery(REFUND_CANDIDATES.formatted(runs)).execute(refundCandidates))
                .replaceWithVoid();
    }

    /**
     * Settles what other days' runs found missing at the provider and this bill lists. Its own statement after the
     * comparison committed: it writes other runs' rows, and holding those locks in the comparison's long transaction
     * would make concurrent runs deadlock.
     */
    Uni<Integer> listedElsewhere(SqlClient client, Run run) {
        return client.preparedQuery(LISTED_ELSEWHERE).execute(Tuple.of("listed in the bill of " + run.billDate(),
                        run.merchantId(), run.channel().path(), run.id(), run.id()))
                .onFailure(MySqlErrors::isLockContest).retry().atMost(2)
                .map(rows -> rows.rowCount());
    }

    /** Our payments and refunds of the day, counted and summed like the bill's lines. */
    Uni<BillTotals> ours(SqlClient client, Run run, Day day) {
        String merchant = run.merchantId();
        String channel = run.channel().path();
        return client.preparedQuery(OUR_PAYMENTS).execute(Tuple.tuple().addString(merchant).addString(channel)
                        .addValue(day.from()).addValue(day.to()).addString(merchant).addString(channel)
                        .addValue(day.from()).addValue(day.to()))
                .flatMap(payments -> client.preparedQuery(OUR_REFUNDS)
                        .execute(Tuple.of(merchant, channel, day.from(), day.to()))
                        .map(refunds -> {
                            Row p = payments.iterator().next();
                            Row r = refunds.iterator().next();
                            return new BillTotals(p.getLong("n"), scaled(p.getBigDecimal("total")), r.getLong("n"),
                                    scaled(r.getBigDecimal("total")));
                        }));
    }

    Uni<Long> openOf(SqlClient client, long runId) {
        return client.preparedQuery(OPEN_OF_RUN).execute(Tuple.of(runId)).map(rows -> rows.iterator().next().getLong(0));
    }

    /** Opens what waited out its cross-day window: after every run, and on the schedule between runs. */
    Uni<Integer> openDue(SqlClient client) {
        return client.preparedQuery(OPEN_DUE).execute().onFailure(MySqlErrors::isLockContest).retry().atMost(2)
                .map(rows -> rows.rowCount());
    }

    private static Tuple copy(Tuple tuple) {
        Tuple copy = Tuple.tuple();
        for (int i = 0; i < tuple.size(); i++) {
            copy.addValue(tuple.getValue(i));
        }
        return copy;
    }

    private static BigDecimal scaled(BigDecimal value) {
        return value.setScale(2);
    }
}
