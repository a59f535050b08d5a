package io.paycallback.ledger;

import io.paycallback.channel.Notice;
import io.smallrye.mutiny.Uni;
import io.vertx.core.buffer.Buffer;
import io.vertx.mutiny.mysqlclient.MySQLClient;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * Reserves callbacks: one autocommit INSERT against the unique key, outside any transaction, so a concurrent duplicate
 * fails fast on the key instead of waiting behind somebody's business transaction. A duplicate-key error is the
 * answer "already have it"; there is no select-then-insert anywhere.
 */
@ApplicationScoped
public class CallbackLedger {

    static final String INSERT_PAYMENT = """
            INSERT INTO pay_callback_log
                (merchant_id, channel, channel_trade_no, out_trade_no, trade_state, amount, currency,
                 status, retry_count, next_retry_at, raw_body, created_at, updated_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, 0, 0, NOW(3), ?, NOW(3), NOW(3))""";

    static final String INSERT_REFUND = """
            INSERT INTO refund_callback_log
                (merchant_id, channel, refund_no, channel_refund_id, channel_trade_no, out_trade_no, refund_state,
                 amount, currency, status, retry_count, next_retry_at, raw_body, created_at, updated_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 0, NOW(3), ?, NOW(3), NOW(3))""";

    private final Pool pool;

    public CallbackLedger(Pool pool) {
        this.pool = pool;
    }

    public Uni<Reservation> reserve(Notice.Payment payment, byte[] rawBody) {
        Tuple row = Tuple.tuple()
                .addString(payment.merchantId())
                .addString(payment.channel().path())
                .addString(payment.channelTradeNo())
                .addString(payment.outTradeNo())
                .addString(payment.tradeState())
                .addBigDecimal(payment.amount())
                .addString(payment.currency())
                .addValue(Buffer.buffer(rawBody));
        return insert(CallbackLog.PAYMENT, INSERT_PAYMENT, row);
    }

    public Uni<Reservation> reserve(Notice.Refund refund, byte[] rawBody) {
        Tuple row = Tuple.tuple()
                .addString(refund.merchantId())
                .addString(refund.channel().path())
                .addString(refund.refundNo())
                .addString(refund.channelRefundId())
                .addString(refund.channelTradeNo())
                .addString(refund.outTradeNo())
                .addString(refund.result().name())
                .addBigDecimal(refund.amount())
                .addString(refund.currency())
                .addValue(Buffer.buffer(rawBody));
        return insert(CallbackLog.REFUND, INSERT_REFUND, row);
    }

    private Uni<Reservation> insert(CallbackLog log, String sql, Tuple row) {
        return pool.preparedQuery(sql).execute(row)
                .<Reservation>map(rows -> new Reservation.Reserved(log, rows.property(MySQLClient.LAST_INSERTED_ID)))
                .onFailure(MySqlErrors::isDuplicateKey).recoverWithItem(() -> new Reservation.AlreadyReserved(log));
    }
}
