package io.paycallback.inbox;

import io.paycallback.channel.Notice;
import io.paycallback.lease.RowStatus;
import io.paycallback.trade.ChannelTradeNo;
import io.paycallback.trade.Money;
import io.paycallback.trade.OutTradeNo;
import io.paycallback.trade.RefundNo;
import io.paycallback.tracing.Traceparent;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.RowSet;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Function;

/** Reads reserved callbacks back for processing. */
@ApplicationScoped
public class StoredCallbacks {

    static final String PAYMENT = """
            SELECT id, merchant_id, channel, channel_trade_no, out_trade_no, amount, currency, traceparent
            FROM pay_callback_log WHERE id = ?""";
    static final String REFUND = """
            SELECT id, merchant_id, channel, refund_no, channel_refund_id, channel_trade_no, out_trade_no, refund_state,
                   amount, refunded_total, currency, traceparent
            FROM refund_callback_log WHERE id = ?""";
    static final String PAYMENTS = """
            SELECT id, merchant_id, channel, channel_trade_no, out_trade_no, amount, currency, traceparent
            FROM pay_callback_log WHERE id IN (%s)""";
    static final String REFUNDS = """
            SELECT id, merchant_id, channel, refund_no, channel_refund_id, channel_trade_no, out_trade_no, refund_state,
                   amount, refunded_total, currency, traceparent
            FROM refund_callback_log WHERE id IN (%s)""";
    static final String PENDING_REFUNDS = """
            SELECT id, merchant_id, channel, refund_no, channel_refund_id, channel_trade_no, out_trade_no, amount, currency,
                   traceparent
            FROM refund_pending_log WHERE id IN (%s)""";
    static final String PENDING_REFUND = """
            SELECT id, merchant_id, channel, refund_no, channel_refund_id, channel_trade_no, out_trade_no, amount, currency,
                   traceparent
            FROM refund_pending_log WHERE id = ?""";
    static final String PAYMENT_BY_TRADE = """
            SELECT id, merchant_id, channel, channel_trade_no, out_trade_no, amount, currency, status, traceparent
            FROM pay_callback_log WHERE merchant_id = ? AND channel = ? AND channel_trade_no = ?""";

    public Uni<StoredPayment> payment(SqlClient client, long id) {
        return client.preparedQuery(PAYMENT).execute(Tuple.of(id)).map(rows -> toPayment(only(rows, id)));
    }

    public Uni<StoredRefund> refund(SqlClient client, long id) {
        return client.preparedQuery(REFUND).execute(Tuple.of(id)).map(rows -> toRefund(only(rows, id)));
    }

    /** Several payment callbacks with one statement, in no particular order; fails if any is gone. */
    public Uni<List<StoredPayment>> payments(SqlClient client, List<Long> ids) {
        return all(client, PAYMENTS, ids, StoredCallbacks::toPayment);
    }

    /** Several refund callbacks with one statement, in no particular order; fails if any is gone. */
    public Uni<List<StoredRefund>> refunds(SqlClient client, List<Long> ids) {
        return all(client, REFUNDS, ids, StoredCallbacks::toRefund);
    }

    /** Several notices of refunds still in progress with one statement, in no particular order; fails if any is gone. */
    public Uni<List<StoredPendingRefund>> pendingRefunds(SqlClient client, List<Long> ids) {
        return all(client, PENDING_REFUNDS, ids, StoredCallbacks::toPendingRefund);
    }

    public Uni<StoredPendingRefund> pendingRefund(SqlClient client, long id) {
        return client.preparedQuery(PENDING_REFUND).execute(Tuple.of(id)).map(rows -> toPendingRefund(only(rows, id)));
    }

    private static <T> Uni<List<T>> all(SqlClient client, String sql, List<Long> ids, Function<Row, T> mapper) {
        Tuple params = Tuple.tuple();
        ids.forEach(params::addLong);
        String placeholders = String.join(", ", Collections.nCopies(ids.size(), "?"));
        return client.preparedQuery(sql.formatted(placeholders)).execute(params).map(rows -> {
            List<T> found = new ArrayList<>(ids.size());
            for (Row row : rows) {
                found.add(mapper.apply(row));
            }
            if (found.size() != ids.size()) {
                throw new IllegalStateException((ids.size() - found.size()) + " of callbacks " + ids + " are gone");
            }
            return found;
        });
    }

    private static StoredRefund toRefund(Row row) {
        return new StoredRefund(row.getLong("id"), row.getString("merchant_id"), row.getString("channel"),
                new RefundNo(row.getString("refund_no")), row.getString("channel_refund_id"),
                ChannelTradeNo.ofNullable(row.getString("channel_trade_no")), OutTradeNo.ofNullable(row.getString("out_trade_no")),
                Notice.RefundResult.SUCCEEDED.name().equals(row.getString("refund_state")),
                row.getBigDecimal("amount"), row.getBigDecimal("refunded_total"), row.getString("currency"),
                Traceparent.parse(row.getString("traceparent")));
    }

    private static StoredPendingRefund toPendingRefund(Row row) {
        return new StoredPendingRefund(row.getLong("id"), row.getString("merchant_id"), row.getString("channel"),
                new RefundNo(row.getString("refund_no")), row.getString("channel_refund_id"),
                ChannelTradeNo.ofNullable(row.getString("channel_trade_no")), OutTradeNo.ofNullable(row.getString("out_trade_no")),
                new Money(row.getBigDecimal("amount"), row.getString("currency")),
                Traceparent.parse(row.getString("traceparent")));
    }

    /** The processed payment a refund refers to, or null while that payment is unknown or not yet processed. */
    public Uni<StoredPayment> processedPayment(SqlClient client, String merchantId, String channel,
                                              ChannelTradeNo channelTradeNo) {
        return client.preparedQuery(PAYMENT_BY_TRADE).execute(Tuple.of(merchantId, channel, channelTradeNo.value()))
                .map(rows -> {
                    for (Row row : rows) {
                        RowStatus status = RowStatus.of(row.getInteger("status"));
                        if (status == RowStatus.DONE || status == RowStatus.COMPACTED) {
                            return toPayment(row);
                        }
                    }
                    return null;
                });
    }

    private static StoredPayment toPayment(Row row) {
        return new StoredPayment(row.getLong("id"), row.getString("merchant_id"), row.getString("channel"),
                new ChannelTradeNo(row.getString("channel_trade_no")), new OutTradeNo(row.getString("out_trade_no")),
                new Money(row.getBigDecimal("amount"), row.getString("currency")),
                Traceparent.parse(row.getString("traceparent")));
    }

    private static Row only(RowSet<Row> rows, long id) {
        var iterator = rows.iterator();
        if (!iterator.hasNext()) {
            throw new IllegalStateException("callback #" + id + " is gone");
        }
        return iterator.next();
    }
}
