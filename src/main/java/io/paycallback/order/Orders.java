package io.paycallback.order;

import io.paycallback.db.MySqlErrors;
import io.paycallback.inbox.StoredPayment;
import io.paycallback.trade.ChannelTradeNo;
import io.paycallback.trade.Money;
import io.paycallback.trade.OutTradeNo;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/** The orders table. Every state change is a conditional UPDATE whose row count says whether it happened. */
@ApplicationScoped
public class Orders {

    static final String INSERT = """
            INSERT INTO orders (merchant_id, out_trade_no, amount, currency, combine_out_trade_no, status, refunded_amount,
                                created_at, updated_at)
            VALUES (?, ?, ?, ?, ?, 'PENDING', 0, NOW(3), NOW(3))""";
    static final String FIND = """
            SELECT merchant_id, out_trade_no, amount, currency, status, channel, channel_trade_no, paid_at, refunded_amount,
                   combine_out_trade_no
            FROM orders WHERE merchant_id = ? AND out_trade_no = ?""";
    static final String FIND_CURRENT = FIND + " FOR UPDATE";
    static final String DATES = "SELECT created_at, paid_at, closed_at, updated_at FROM orders WHERE merchant_id = ? AND out_trade_no = ?";
    // A CLOSING order is paid like a PENDING one: the buyer paid before the provider closed the trade.
    static final String MARK_PAID = """
            UPDATE orders SET status = 'PAID', channel = ?, channel_trade_no = ?, paid_at = NOW(3), updated_at = NOW(3)
            WHERE merchant_id = ? AND out_trade_no = ? AND status IN ('PENDING', 'CLOSING') AND amount = ? AND currency = ?""";
    // Driven from the callbacks (STRAIGHT_JOIN): joined the other way, MariaDB walks every PENDING order.
    static final String MARK_ALL_PAID = """
            UPDATE pay_callback_log p STRAIGHT_JOIN orders o ON o.merchant_id = p.merchant_id AND o.out_trade_no = p.out_trade_no
            SET o.status = 'PAID', o.channel = p.channel, o.channel_trade_no = p.channel_trade_no, o.paid_at = NOW(3),
                o.updated_at = NOW(3)
            WHERE p.id IN (%s) AND o.status IN ('PENDING', 'CLOSING') AND o.amount = p.amount AND o.currency = p.currency""";
    static final String SAVEPOINT = "SAVEPOINT mark_all_paid";
    static final String ROLLBACK_TO_SAVEPOINT = "ROLLBACK TO SAVEPOINT mark_all_paid";
    static final String CLOSE = """
            UPDATE orders SET status = 'CLOSED', closed_at = NOW(3), updated_at = NOW(3)
            WHERE merchant_id = ? AND out_trade_no = ? AND status = 'PENDING'""";
    static final String START_CLOSING = """
            UPDATE orders SET status = 'CLOSING', updated_at = NOW(3)
            WHERE merchant_id = ? AND out_trade_no = ? AND status = 'PENDING'""";
    static final String FINISH_CLOSING = """
            UPDATE orders SET status = 'CLOSED', closed_at = NOW(3), updated_at = NOW(3)
            WHERE merchant_id = ? AND out_trade_no = ? AND status = 'CLOSING'""";
    static final String EXPIRED = """
            SELECT merchant_id, out_trade_no FROM orders
            WHERE status = 'PENDING' AND created_at <= DATE_SUB(NOW(3), INTERVAL ? MICROSECOND)
            ORDER BY created_at LIMIT ?""";
    // The refunded amount only grows (notices arrive in any order); REFUNDED means refunded in full, nothing less.
    static final String RECORD_REFUNDED = """
            UPDATE orders SET status = CASE WHEN ? = amount THEN 'REFUNDED' ELSE status END,
                refunded_amount = ?, updated_at = NOW(3)
            WHERE merchant_id = ? AND out_trade_no = ? AND channel = ? AND channel_trade_no = ?
              AND status IN ('PAID', 'REFUNDED') AND refunded_amount < ? AND ? <= amount""";

    /** Registers a PENDING order; false when the merchant has an order of this number already. */
    public Uni<Boolean> create(SqlClient client, String merchantId, String outTradeNo, BigDecimal amount, String currency,
                               Optional<String> combineOutTradeNo) {
        return client.preparedQuery(INSERT).execute(Tuple.of(merchantId, outTradeNo, amount, currency,
                        combineOutTradeNo.orElse(null)))
                .map(rows -> true)
                .onFailure(MySqlErrors::isDuplicateKey).recoverWithItem(false);
    }

    public Uni<Optional<Order>> find(SqlClient client, String merchantId, String outTradeNo) {
        return read(client, FIND, merchantId, outTradeNo);
    }

    /** When an order was registered, paid, closed and last changed: its state changes, for an operator's timeline. */
    public record Dates(LocalDateTime createdAt, LocalDateTime paidAt, LocalDateTime closedAt, LocalDateTime updatedAt) {
    }

    public Uni<Optional<Dates>> dates(SqlClient client, String merchantId, String outTradeNo) {
        return client.preparedQuery(DATES).execute(Tuple.of(merchantId, outTradeNo)).map(rows -> {
            var iterator = rows.iterator();
            if (!iterator.hasNext()) {
                return Optional.empty();
            }
            Row row = iterator.next();
            return Optional.of(new Dates(row.getLocalDateTime("created_at"), row.getLocalDateTime("paid_at"),
                    row.getLocalDateTime("closed_at"), row.getLocalDateTime("updated_at")));
        });
    }

    /** A locking (current) read, for deciding after a conditional update inside the same transaction. */
    public Uni<Optional<Order>> findCurrent(SqlClient client, String merchantId, OutTradeNo outTradeNo) {
        return read(client, FIND_CURRENT, merchantId, outTradeNo.value());
    }

    /** PENDING to PAID, only for the order's own amount and currency. */
    public Uni<Boolean> markPaid(SqlClient client, StoredPayment payment) {
        return changed(client, MARK_PAID, Tuple.tuple().addString(payment.channel())
                .addString(payment.channelTradeNo().value()).addString(payment.merchantId())
                .addString(payment.outTradeNo().value()).addBigDecimal(payment.paid().amount())
                .addString(payment.paid().currency()));
    }

    /**
     * PENDING to PAID for every payment's order with one statement, inside the caller's transaction, but only all or
     * none: when any order is not PENDING with its payment's amount and currency (or two payments name one order), the
     * statement is undone (to a savepoint; the transaction goes on) and false says the payments need one by one.
     */
    public Uni<Boolean> markAllPaid(SqlClient transaction, List<StoredPayment> payments) {
        Tuple ids = Tuple.tuple();
        payments.forEach(payment -> ids.addLong(payment.id()));
        String sql = MARK_ALL_PAID.formatted(String.join(", ", Collections.nCopies(payments.size(), "?")));
        return transaction.query(SAVEPOINT).execute()
                .chain(() -> transaction.preparedQuery(sql).execute(ids))
                .chain(updated -> updated.rowCount() == payments.size() ? Uni.createFrom().item(true)
                        : transaction.query(ROLLBACK_TO_SAVEPOINT).execute().replaceWith(false));
    }

    public Uni<Boolean> close(SqlClient client, String merchantId, String outTradeNo) {
        return changed(client, CLOSE, Tuple.of(merchantId, outTradeNo));
    }

    /** PENDING to CLOSING: the providers are asked to close it first (inside the caller's transaction). */
    public Uni<Boolean> startClosing(SqlClient client, String merchantId, String outTradeNo) {
        return changed(client, START_CLOSING, Tuple.of(merchantId, outTradeNo));
    }

    /** CLOSING to CLOSED once every provider said the buyer can no longer pay. */
    public Uni<Boolean> finishClosing(SqlClient client, String merchantId, String outTradeNo) {
        return changed(client, FINISH_CLOSING, Tuple.of(merchantId, outTradeNo));
    }

    /** An order's two keys. */
    public record Key(String merchantId, String outTradeNo) {
    }

    /** PENDING orders registered longer than {@code age} ago, oldest first. */
    public Uni<List<Key>> pendingOlderThan(SqlClient client, Duration age, int limit) {
        return client.preparedQuery(EXPIRED)
                .execute(Tuple.of(TimeUnit.MICROSECONDS.convert(age), limit)).map(rows -> {
                    List<Key> found = new ArrayList<>();
                    for (Row row : rows) {
                        found.add(new Key(row.getString("merchant_id"), row.getString("out_trade_no")));
                    }
                    return found;
                });
    }

    /**
     * Sets the refunded amount of the order's own payment to the provider's refunded total for it; the order becomes
     * REFUNDED when that is all it was paid. A refund of another payment of the same order leaves the order as it is.
     */
    public Uni<Boolean> recordRefunded(SqlClient client, StoredPayment payment, BigDecimal refundedTotal) {
        return changed(client, RECORD_REFUNDED, Tuple.tuple().addBigDecimal(refundedTotal).addBigDecimal(refundedTotal)
                .addString(payment.merchantId()).addString(payment.outTradeNo().value()).addString(payment.channel())
                .addString(payment.channelTradeNo().value()).addBigDecimal(refundedTotal).addBigDecimal(refundedTotal));
    }

    private static Uni<Boolean> changed(SqlClient client, String sql, Tuple params) {
        return client.preparedQuery(sql).execute(params).map(rows -> rows.rowCount() == 1);
    }

    private static Uni<Optional<Order>> read(SqlClient client, String sql, String merchantId, String outTradeNo) {
        return client.preparedQuery(sql).execute(Tuple.of(merchantId, outTradeNo)).map(rows -> {
            var iterator = rows.iterator();
            return iterator.hasNext() ? Optional.of(toOrder(iterator.next())) : Optional.empty();
        });
    }

    private static Order toOrder(Row row) {
        String currency = row.getString("currency");
        return new Order(row.getString("merchant_id"), new OutTradeNo(row.getString("out_trade_no")),
                new Money(row.getBigDecimal("amount"), currency), OrderStatus.stored(row.getString("status")),
                row.getString("channel"), ChannelTradeNo.ofNullable(row.getString("channel_trade_no")),
                row.getLocalDateTime("paid_at"), new Money(row.getBigDecimal("refunded_amount"), currency),
                row.getString("status"), Optional.ofNullable(OutTradeNo.ofNullable(row.getString("combine_out_trade_no"))));
    }
}
