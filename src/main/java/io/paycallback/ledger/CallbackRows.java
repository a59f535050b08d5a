package io.paycallback.ledger;

import io.paycallback.channel.Notice;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** What operators read and do to stored callbacks: list, inspect, replay from the raw body, requeue. */
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
    static final String RAW_BODY = "SELECT raw_body FROM %s WHERE id = ?";
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

    public Uni<List<Map<String, Object>>> list(CallbackLog log, RowStatus status, int limit) {
        return pool.preparedQuery(LIST.formatted(columns(log), log.table())).execute(Tuple.of(status.code(), limit))
                .map(rows -> {
                    List<Map<String, Object>> views = new ArrayList<>();
                    rows.forEach(row -> views.add(view(row)));
                    return views;
                });
    }

    public Uni<Optional<Map<String, Object>>> find(CallbackLog log, long id) {
        return pool.preparedQuery(FIND.formatted(columns(log), log.table())).execute(Tuple.of(id)).map(rows -> {
            var iterator = rows.iterator();
            return iterator.hasNext() ? Optional.of(view(iterator.next())) : Optional.empty();
        });
    }

    public Uni<Optional<byte[]>> rawBody(CallbackLog log, long id) {
        return pool.preparedQuery(RAW_BODY.formatted(log.table())).execute(Tuple.of(id)).map(rows -> {
            var iterator = rows.iterator();
            return iterator.hasNext() ? Optional.of(iterator.next().getBuffer("raw_body").getBytes()) : Optional.empty();
        });
    }

    /**
     * Puts a done or dead payment back to pending with the fields re-read from its raw body. The unique key must be
     * the same, so a replay can never become a second callback.
     *
     * @return whether the row was reset (false: it is pending already, or the key does not match)
     */
    public Uni<Boolean> replay(long id, Notice.Payment payment) {
        return pool.preparedQuery(REPLAY_PAYMENT).execute(Tuple.tuple()
                        .addString(payment.outTradeNo()).addString(payment.tradeState()).addBigDecimal(payment.amount())
                        .addString(payment.currency()).addLong(id).addString(payment.merchantId())
                        .addString(payment.channel().path()).addString(payment.channelTradeNo()))
                .map(rows -> rows.rowCount() == 1);
    }

    public Uni<Boolean> replay(long id, Notice.Refund refund) {
        return pool.preparedQuery(REPLAY_REFUND).execute(Tuple.tuple()
                        .addString(refund.channelRefundId()).addString(refund.channelTradeNo())
                        .addString(refund.outTradeNo()).addString(refund.result().name())
                        .addBigDecimal(refund.amount()).addBigDecimal(refund.refundedTotal())
                        .addString(refund.currency()).addLong(id)
                        .addString(refund.merchantId()).addString(refund.channel().path()).addString(refund.refundNo()))
                .map(rows -> rows.rowCount() == 1);
    }

    private static String columns(CallbackLog log) {
        return log == CallbackLog.PAYMENT ? PAYMENT_COLUMNS : REFUND_COLUMNS;
    }

    private static Map<String, Object> view(Row row) {
        Map<String, Object> view = new LinkedHashMap<>();
        for (int column = 0; column < row.size(); column++) {
            String name = row.getColumnName(column);
            Object value = row.getValue(column);
            if (name.equals("status")) {
                value = RowStatus.of(row.getInteger(column)).label();
            } else if (name.equals("amount") || name.equals("refunded_total")) {
                value = value == null ? null : row.getBigDecimal(column).toPlainString();
            } else if (name.equals("id") || name.equals("body_length")) {
                value = row.getLong(column);
            } else if (value != null && !(value instanceof String) && !(value instanceof Number)) {
                value = value.toString();
            }
            view.put(camelCase(name), value);
        }
        return view;
    }

    static String camelCase(String column) {
        StringBuilder name = new StringBuilder();
        boolean upper = false;
        for (char c : column.toCharArray()) {
            if (c == '_') {
                upper = true;
            } else {
                name.append(upper ? Character.toUpperCase(c) : c);
                upper = false;
            }
        }
        return name.toString();
    }
}
