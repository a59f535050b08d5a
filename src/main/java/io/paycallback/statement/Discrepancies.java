package io.paycallback.statement;

import io.paycallback.trade.ChannelId;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The statement_discrepancies table: what the runs found, for the repair, the operators and the gauges. */
@ApplicationScoped
public class Discrepancies {

    static final String COLUMNS = """
            SELECT id, run_id, merchant_id, channel, bill_date, kind, item, ident, out_trade_no, trade_no, refund_no,
                   refund_id, bill_amount, bill_currency, bill_state, our_amount, our_currency, our_state, state, due_at,
                   note, resolved_by, resolved_at, opened_at, created_at, updated_at
            FROM statement_discrepancies""";
    static final String BY_ID = COLUMNS + " WHERE id = ?";
    static final String REPAIRABLE = COLUMNS + " WHERE run_id = ? AND kind = 'MISSING_HERE' AND state = 'OPEN' ORDER BY id LIMIT ?";
    static final String LIST = COLUMNS + " " + """
            WHERE (? IS NULL OR kind = ?) AND (? IS NULL OR state = ?) AND (? IS NULL OR channel = ?)
              AND (? IS NULL OR bill_date = ?) AND (? IS NULL OR run_id = ?) AND id < ?
            ORDER BY id DESC LIMIT ?""";
    static final String REPAIRED = """
            UPDATE statement_discrepancies SET state = 'REPAIRED', note = ?, resolved_by = 'statement',
                resolved_at = NOW(3), updated_at = NOW(3)
            WHERE id = ? AND state = 'OPEN'""";
    static final String NOTE = "UPDATE statement_discrepancies SET note = ?, updated_at = NOW(3) WHERE id = ? AND state = 'OPEN'";
    static final String RESOLVE = """
            UPDATE statement_discrepancies SET state = 'RESOLVED', note = ?, resolved_by = ?, resolved_at = NOW(3),
                updated_at = NOW(3)
            WHERE id = ? AND state IN ('OPEN', 'WAITING')""";
    static final String OPEN_BY_KIND = """
            SELECT kind, COUNT(*) AS n, TIMESTAMPDIFF(SECOND, MIN(opened_at), NOW(3)) AS oldest_seconds
            FROM statement_discrepancies WHERE state = 'OPEN'
            GROUP BY kind""";

    private static final int NOTE_LENGTH = 512;

    /** A discrepancy as stored: both sides' identities, amounts and states. */
    public record Discrepancy(long id, long runId, String merchantId, ChannelId channel, LocalDate billDate,
                              DiscrepancyKind kind, Item item, String ident, String outTradeNo, String tradeNo,
                              String refundNo, String refundId, BigDecimal billAmount, String billCurrency,
                              String billState, BigDecimal ourAmount, String ourCurrency, String ourState,
                              DiscrepancyState state, LocalDateTime dueAt, String note, String resolvedBy,
                              LocalDateTime resolvedAt, LocalDateTime openedAt, LocalDateTime createdAt,
                              LocalDateTime updatedAt) {
    }

    public enum Item {
        PAYMENT,
        REFUND,
        /** A value a newer (or, after a rollback, an older) release stored and this build does not know. */
        UNKNOWN;

        /** The stored value; {@link #UNKNOWN} for one this build does not know. */
        public static Item stored(String value) {
            for (Item known : values()) {
                if (known != UNKNOWN && known.name().equals(value)) {
                    return known;
                }
            }
            return UNKNOWN;
        }
    }

    /** The filter of a listing; every part optional. */
    public record Filter(DiscrepancyKind kind, DiscrepancyState state, ChannelId channel, LocalDate billDate, Long runId) {
    }

    /** Open discrepancies of one kind: how many, and for how many seconds the oldest has been open (0 when none). */
    public record OpenCount(long count, long oldestSeconds) {
    }

    private final Pool pool;

    public Discrepancies(Pool pool) {
        this.pool = pool;
    }

    public Uni<Optional<Discrepancy>> find(SqlClient client, long id) {
        return client.preparedQuery(BY_ID).execute(Tuple.of(id)).map(rows -> {
            var iterator = rows.iterator();
            return iterator.hasNext() ? Optional.of(discrepancy(iterator.next())) : Optional.empty();
        });
    }

    /** Newest first; {@code beforeId} pages back. */
    public Uni<List<Discrepancy>> list(Filter filter, long beforeId, int limit) {
        String kind = filter.kind() == null ? null : filter.kind().name();
        String state = filter.state() == null ? null : filter.state().name();
        String channel = filter.channel() == null ? null : filter.channel().path();
        Tuple params = Tuple.tuple().addString(kind).addString(kind).addString(state).addString(state)
                .addString(channel).addString(channel).addValue(filter.billDate()).addValue(filter.billDate())
                .addValue(filter.runId()).addValue(filter.runId()).addLong(beforeId).addInteger(limit);
        return pool.preparedQuery(LIST).execute(params).map(rows -> {
            List<Discrepancy> found = new ArrayList<>();
            rows.forEach(row -> found.add(discrepancy(row)));
            return found;
        });
    }

    Uni<List<Discrepancy>> repairable(long runId, int limit) {
        return pool.preparedQuery(REPAIRABLE).execute(Tuple.of(runId, limit)).map(rows -> {
            List<Discrepancy> found = new ArrayList<>();
            rows.forEach(row -> found.add(discrepancy(row)));
            return found;
        });
    }

    Uni<Boolean> repaired(long id, String note) {
        return pool.preparedQuery(REPAIRED).execute(Tuple.of(truncate(note), id)).map(rows -> rows.rowCount() == 1);
    }

    Uni<Void> note(long id, String note) {
        return pool.preparedQuery(NOTE).execute(Tuple.of(truncate(note), id)).replaceWithVoid();
    }

    /** Closes an open or waiting discrepancy with the operator's note, in the caller's transaction; false if it is not. */
    public Uni<Boolean> resolve(SqlClient client, long id, String note, String actor) {
        return client.preparedQuery(RESOLVE).execute(Tuple.of(truncate(note), actor, id)).map(rows -> rows.rowCount() == 1);
    }

    /** Open discrepancies by kind, every kind present (zero when none). */
    public Uni<Map<DiscrepancyKind, OpenCount>> openByKind() {
        return pool.preparedQuery(OPEN_BY_KIND).execute().map(rows -> {
            Map<DiscrepancyKind, OpenCount> counts = new EnumMap<>(DiscrepancyKind.class);
            for (DiscrepancyKind kind : DiscrepancyKind.values()) {
                if (kind != DiscrepancyKind.UNKNOWN) {
                    counts.put(kind, new OpenCount(0, 0));
                }
            }
            rows.forEach(row -> {
                DiscrepancyKind kind = DiscrepancyKind.stored(row.getString("kind"));
                if (kind != DiscrepancyKind.UNKNOWN) {
                    counts.put(kind, new OpenCount(row.getLong("n"), row.getLong("oldest_seconds")));
                }
            });
            return counts;
        });
    }

    private static String truncate(String note) {
        return note.length() > NOTE_LENGTH ? note.substring(0, NOTE_LENGTH) : note;
    }

    static Discrepancy discrepancy(Row row) {
        return new Discrepancy(row.getLong("id"), row.getLong("run_id"), row.getString("merchant_id"),
                ChannelId.fromPath(row.getString("channel")).orElseThrow(), row.getLocalDate("bill_date"),
                DiscrepancyKind.stored(row.getString("kind")), Item.stored(row.getString("item")),
                row.getString("ident"), row.getString("out_trade_no"), row.getString("trade_no"),
                row.getString("refund_no"), row.getString("refund_id"), row.getBigDecimal("bill_amount"),
                row.getString("bill_currency"), row.getString("bill_state"), row.getBigDecimal("our_amount"),
                row.getString("our_currency"), row.getString("our_state"),
                DiscrepancyState.stored(row.getString("state")), row.getLocalDateTime("due_at"), row.getString("note"),
                row.getString("resolved_by"), row.getLocalDateTime("resolved_at"), row.getLocalDateTime("opened_at"),
                row.getLocalDateTime("created_at"), row.getLocalDateTime("updated_at"));
    }
}
