package io.paycallback.inbox;

import io.paycallback.channel.Notice;
import io.paycallback.lease.RowStatus;
import io.paycallback.trade.ChannelId;
import io.paycallback.trade.ChannelTradeNo;
import io.paycallback.trade.Money;
import io.paycallback.trade.OutTradeNo;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What operators read and do to stored callbacks: list, inspect, replay from the raw body, requeue. An order's
 * timeline also reads the archive tables; nothing here changes an archived row.
 */
@ApplicationScoped
public class CallbackRows {

    private static final String PAYMENT_COLUMNS = """
            id, merchant_id, channel, channel_trade_no, out_trade_no, trade_state, amount, currency, status, retry_count,
            next_retry_at, last_error, LENGTH(raw_body) AS body_length, created_at, updated_at""";
    private static final String REFUND_COLUMNS = """
            id, merchant_id, channel, refund_no, channel_refund_id, channel_trade_no, out_trade_no, refund_state, amount,
            refunded_total, currency, status, retry_count, next_retry_at, last_error, LENGTH(raw_body) AS body_length, created_at, updated_at""";
    static final String LIST = "SELECT %s FROM %s WHERE status = ? ORDER BY next_retry_at DESC LIMIT ?";
    static final String FIND = "SELECT %s FROM %s WHERE id = ?";
    // With the log's table or its archive (which has the same columns).
    static final String RAW_BODY = "SELECT raw_body FROM %s WHERE id = ?";
    static final String FOR_ORDER = "SELECT %s FROM %s WHERE merchant_id = ? AND out_trade_no = ? ORDER BY id";
    // Each on its log's unique key, which the archive has too: the provider's number alone is not indexed, and is
    // unique only per channel anyway. %s is the log or its archive.
    static final String ORDER_OF_PAYMENT = """
            SELECT out_trade_no FROM %s WHERE merchant_id = ? AND channel = ? AND channel_trade_no = ?""";
    static final String ORDER_OF_REFUND = """
            SELECT out_trade_no FROM %s WHERE merchant_id = ? AND channel = ? AND refund_no = ?""";
    static final String REPLAY_PAYMENT = """
            UPDATE pay_callback_log SET out_trade_no = ?, trade_state = ?, amount = ?, currency = ?, status = 0,
                retry_count = 0, next_retry_at = NOW(3), lease_token = NULL, last_error = NULL, updated_at = NOW(3)
            WHERE id = ? AND merchant_id = ? AND channel = ? AND channel_trade_no = ? AND status IN (1, 2)""";
    static final String REPLAY_REFUND = """
            UPDATE refund_callback_log SET channel_refund_id = ?, channel_trade_no = ?, out_trade_no = ?, refund_state = ?,
                amount = ?, refunded_total = ?, currency = ?, status = 0, retry_count = 0, next_retry_at = NOW(3), lease_token = NULL,
                last_error = NULL, updated_at = NOW(3)
            WHERE id = ? AND merchant_id = ? AND channel = ? AND refund_no = ? AND status IN (1, 2)""";

    private final Pool pool;

    public CallbackRows(Pool pool) {
        this.pool = pool;
    }

    public Uni<List<CallbackRow>> list(CallbackTable log, RowStatus status, int limit) {
        return pool.preparedQuery(LIST.formatted(columns(log), log.table())).execute(Tuple.of(status.code(), limit))
                .map(rows -> {
                    List<CallbackRow> found = new ArrayList<>();
                    rows.forEach(row -> found.add(read(log, row)));
                    return found;
                });
    }

    public Uni<Optional<CallbackRow>> find(CallbackTable log, long id) {
        return find(log, log.table(), id);
    }

    /** A callback housekeeping archived; its body was blanked before it moved (status compacted). */
    public Uni<Optional<CallbackRow>> findArchived(CallbackTable log, long id) {
        return find(log, log.archiveTable(), id);
    }

    private Uni<Optional<CallbackRow>> find(CallbackTable log, String table, long id) {
        return pool.preparedQuery(FIND.formatted(columns(log), table)).execute(Tuple.of(id)).map(rows -> {
            var iterator = rows.iterator();
            return iterator.hasNext() ? Optional.of(read(log, iterator.next())) : Optional.empty();
        });
    }

    /** Every callback of one order in the hot table, oldest first, without bodies. */
    public Uni<List<CallbackRow>> forOrder(CallbackTable log, String merchantId, String outTradeNo) {
        return forOrder(log, log.table(), merchantId, outTradeNo);
    }

    /** Every callback of one order that housekeeping archived, oldest first, without bodies. */
    public Uni<List<CallbackRow>> archivedForOrder(CallbackTable log, String merchantId, String outTradeNo) {
        return forOrder(log, log.archiveTable(), merchantId, outTradeNo);
    }

    private Uni<List<CallbackRow>> forOrder(CallbackTable log, String table, String merchantId, String outTradeNo) {
        return pool.preparedQuery(FOR_ORDER.formatted(columns(log), table)).execute(Tuple.of(merchantId, outTradeNo))
                .map(rows -> {
                    List<CallbackRow> found = new ArrayList<>();
                    rows.forEach(row -> found.add(read(log, row)));
                    return found;
                });
    }

    /**
     * The order a provider's number belongs to: its trade number in the payment log, or a refund number in the refund
     * log, or in their archives. Empty when no callback carries it (or, for a refund, when the notice named no order).
     * The hot table is asked first and the archive after it, so a row that housekeeping moves meanwhile is still found.
     */
    public Uni<Optional<String>> orderOf(CallbackTable log, String merchantId, ChannelId channel, String providerNo) {
        String sql = log == CallbackTable.PAYMENT ? ORDER_OF_PAYMENT : ORDER_OF_REFUND;
        Tuple key = Tuple.of(merchantId, channel.path(), providerNo);
        return orderOf(sql.formatted(log.table()), key).flatMap(hot -> hot.isPresent()
                ? Uni.createFrom().item(hot)
                : orderOf(sql.formatted(log.archiveTable()), key));
    }

    private Uni<Optional<String>> orderOf(String sql, Tuple key) {
        return pool.preparedQuery(sql).execute(key).map(rows -> {
            var iterator = rows.iterator();
            return iterator.hasNext() ? Optional.ofNullable(iterator.next().getString("out_trade_no")) : Optional.empty();
        });
    }

    public Uni<Optional<byte[]>> rawBody(CallbackTable log, long id) {
        return rawBody(log.table(), id);
    }

    /**
     * An archived callback's body. The archive has the column, but housekeeping archives a callback only after
     * blanking its body (status compacted), so a row it moved has zero bytes here.
     */
    public Uni<Optional<byte[]>> archivedRawBody(CallbackTable log, long id) {
        return rawBody(log.archiveTable(), id);
    }

    private Uni<Optional<byte[]>> rawBody(String table, long id) {
        return pool.preparedQuery(RAW_BODY.formatted(table)).execute(Tuple.of(id)).map(rows -> {
            var iterator = rows.iterator();
            return iterator.hasNext() ? Optional.of(iterator.next().getBuffer("raw_body").getBytes()) : Optional.empty();
        });
    }

    /**
     * Puts a done or dead payment back to pending with the fields re-read from its raw body, in the caller's
     * transaction. The unique key must be the same, so a replay can never become a second callback.
     *
     * @return whether the row was reset (false: it is pending already, or the key does not match)
     */
    public Uni<Boolean> replay(SqlClient client, long id, Notice.Payment payment) {
        return client.preparedQuery(REPLAY_PAYMENT).execute(Tuple.tuple()
                        .addString(payment.outTradeNo().value()).addString(payment.tradeState())
                        .addBigDecimal(payment.amount().amount()).addString(payment.amount().currency()).addLong(id)
                        .addString(payment.merchantId()).addString(payment.channel().path())
                        .addString(payment.channelTradeNo().value()))
                .map(rows -> rows.rowCount() == 1);
    }

    public Uni<Boolean> replay(SqlClient client, long id, Notice.Refund refund) {
        return client.preparedQuery(REPLAY_REFUND).execute(Tuple.tuple()
                        .addString(refund.channelRefundId()).addString(ChannelTradeNo.valueOrNull(refund.channelTradeNo()))
                        .addString(OutTradeNo.valueOrNull(refund.outTradeNo())).addString(refund.result().name())
                        .addBigDecimal(Money.amountOrNull(refund.amount())).addBigDecimal(Money.amountOrNull(refund.refundedTotal()))
                        .addString(refund.currency()).addLong(id)
                        .addString(refund.merchantId()).addString(refund.channel().path()).addString(refund.refundNo().value()))
                .map(rows -> rows.rowCount() == 1);
    }

    private static String columns(CallbackTable log) {
        return log == CallbackTable.PAYMENT ? PAYMENT_COLUMNS : REFUND_COLUMNS;
    }

    /** The one place a callback row becomes a record; the column lists above say what it reads. */
    private static CallbackRow read(CallbackTable log, Row row) {
        if (log == CallbackTable.PAYMENT) {
            return new CallbackRow.Payment(row.getLong("id"), row.getString("merchant_id"), row.getString("channel"),
                    row.getString("channel_trade_no"), row.getString("out_trade_no"), row.getString("trade_state"),
                    row.getBigDecimal("amount"), row.getString("currency"), RowStatus.of(row.getInteger("status")),
                    row.getInteger("retry_count"), row.getLocalDateTime("next_retry_at"), row.getString("last_error"),
                    row.getLong("body_length"), row.getLocalDateTime("created_at"), row.getLocalDateTime("updated_at"), null);
        }
        return new CallbackRow.Refund(row.getLong("id"), row.getString("merchant_id"), row.getString("channel"),
                row.getString("refund_no"), row.getString("channel_refund_id"), row.getString("channel_trade_no"),
                row.getString("out_trade_no"), row.getString("refund_state"), row.getBigDecimal("amount"),
                row.getBigDecimal("refunded_total"), row.getString("currency"), RowStatus.of(row.getInteger("status")),
                row.getInteger("retry_count"), row.getLocalDateTime("next_retry_at"), row.getString("last_error"),
                row.getLong("body_length"), row.getLocalDateTime("created_at"), row.getLocalDateTime("updated_at"), null);
    }
}
