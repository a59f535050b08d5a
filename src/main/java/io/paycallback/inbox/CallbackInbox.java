package io.paycallback.inbox;

import io.paycallback.channel.Notice;
import io.paycallback.db.LostRaces;
import io.paycallback.db.MySqlErrors;
import io.paycallback.lease.RowLease;
import io.paycallback.lease.LeaseConfig;
import io.paycallback.lease.LeasedTable;
import io.paycallback.lease.Pickup;
import io.paycallback.tracing.Traceparent;
import io.paycallback.trade.ChannelTradeNo;
import io.paycallback.trade.Money;
import io.paycallback.trade.OutTradeNo;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import io.vertx.core.buffer.Buffer;
import io.vertx.mutiny.mysqlclient.MySQLClient;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * Reserves callbacks: one autocommit INSERT against the unique key, outside any transaction, so a concurrent duplicate
 * fails fast on the key instead of waiting behind somebody's business transaction. A duplicate-key error is the
 * answer "already have it"; there is no select-then-insert anywhere. On a multi-primary cluster (Galera, Group
 * Replication) the same race between two nodes can end in a certification failure instead of the duplicate key: the
 * INSERT is run again, which then meets the winner's row as a duplicate (see {@link LostRaces}). Once this instance has
 * met a key as a duplicate, its further repeats for some minutes get the same answer from memory
 * ({@link KnownReservations}).
 */
@ApplicationScoped
public class CallbackInbox {

    static final String INSERT_PAYMENT = """
            INSERT INTO pay_callback_log
                (merchant_id, channel, channel_trade_no, out_trade_no, trade_state, amount, currency, origin, traceparent,
                 status, retry_count, lease_token, next_retry_at, raw_body, created_at, updated_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 0, ?, DATE_ADD(NOW(3), INTERVAL ? MICROSECOND), ?, NOW(3), NOW(3))""";

    static final String INSERT_REFUND = """
            INSERT INTO refund_callback_log
                (merchant_id, channel, refund_no, channel_refund_id, channel_trade_no, out_trade_no, refund_state,
                 amount, refunded_total, currency, origin, traceparent, status, retry_count, lease_token, next_retry_at,
                 raw_body, created_at, updated_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 0, ?, DATE_ADD(NOW(3), INTERVAL ? MICROSECOND), ?, NOW(3),
                    NOW(3))""";

    static final String INSERT_PENDING_REFUND = """
            INSERT INTO refund_pending_log
                (merchant_id, channel, refund_no, channel_refund_id, channel_trade_no, out_trade_no, amount, currency,
                 traceparent, status, retry_count, lease_token, next_retry_at, raw_body, created_at, updated_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 0, ?, DATE_ADD(NOW(3), INTERVAL ? MICROSECOND), ?, NOW(3), NOW(3))""";

    /**
     * Notices of refunds the provider is still working on, each to be enrolled for the refund queries. Apart from
     * {@link CallbackTable#REFUND}: the refund's final notice takes the same key there.
     */
    public static final LeasedTable PENDING_REFUNDS = new LeasedTable("refund_pending_log", "refund-pending",
            LeasedTable.Lateness.SINCE_ARRIVAL);

    private final Pool pool;
    private final LostRaces lostRaces;
    private final KnownReservations known;
    private final long leaseMicros;

    public CallbackInbox(Pool pool, LostRaces lostRaces, KnownReservations known, LeaseConfig config) {
        this.pool = pool;
        this.lostRaces = lostRaces;
        this.known = known;
        this.leaseMicros = TimeUnit.MICROSECONDS.convert(config.lease());
    }

    /**
     * The one way a provider's notice is stored, pushed now or replayed from the quarantine: a payment, a refund or a
     * pending refund as its one row, a combine as one row per paid sub-order, a notice {@link Notice#ignoredBecause
     * ignored} as none.
     *
     * @return the reservations, one per row, in the notice's order
     */
    public Uni<List<Reservation>> store(Notice notice, byte[] rawBody, Pickup pickup, Optional<Traceparent> cause) {
        return notice.accept(new Notice.Visitor<Uni<List<Reservation>>, RuntimeException>() {

            @Override
            public Uni<List<Reservation>> payment(Notice.Payment payment) {
                return reserve(payment, rawBody, pickup, Origin.CALLBACK, cause).map(List::of);
            }

            @Override
            public Uni<List<Reservation>> refund(Notice.Refund refund) {
                return reserve(refund, rawBody, pickup, Origin.CALLBACK, cause).map(List::of);
            }

            @Override
            public Uni<List<Reservation>> refundPending(Notice.RefundPending pending) {
                return reserve(pending, rawBody, pickup, cause).map(List::of);
            }

            @Override
            public Uni<List<Reservation>> combined(Notice.Combined combined) {
                return reserve(combined.payments(), rawBody, pickup, Origin.CALLBACK, cause);
            }

            @Override
            public Uni<List<Reservation>> ignored(Notice.Ignored ignored) {
                return Uni.createFrom().item(List.of());
            }
        });
    }

    /**
     * The row keeps the traceparent of what caused it (the callback's span, a provider call's), which the transition
     * continues. Named by the caller rather than read from the current context: on the callback path no span is
     * current, since making one current costs every callback, sampled or not.
     *
     * @param rawBody for a query or submission, the provider's verified answer
     */
    public Uni<Reservation> reserve(Notice.Payment payment, byte[] rawBody, Pickup pickup, Origin origin,
                                    Optional<Traceparent> cause) {
        Tuple row = Tuple.tuple()
                .addString(payment.merchantId())
                .addString(payment.channel().path())
                .addString(payment.channelTradeNo().value())
                .addString(payment.outTradeNo().value())
                .addString(payment.tradeState())
                .addBigDecimal(payment.amount().amount())
                .addString(payment.amount().currency())
                .addString(origin.column())
                .addString(Traceparent.valueOrNull(cause));
        KnownReservations.Key key = new KnownReservations.Key(CallbackTable.PAYMENT.leased(), payment.merchantId(),
                payment.channel(), payment.channelTradeNo().value());
        return insert(key, INSERT_PAYMENT, row, rawBody, pickup);
    }

    /**
     * The paid sub-orders of a combine notice (WeChat Pay 合单), each reserved by its own INSERT under its own key, one
     * after the other: each is the payment of its order, stored once, and a repeated push is a duplicate for each.
     * Every row keeps the whole notice as its body.
     */
    private Uni<List<Reservation>> reserve(List<Notice.Payment> payments, byte[] rawBody, Pickup pickup, Origin origin,
                                          Optional<Traceparent> cause) {
        return Multi.createFrom().iterable(payments)
                .onItem().transformToUniAndConcatenate(payment -> reserve(payment, rawBody, pickup, origin, cause))
                .collect().asList();
    }

    public Uni<Reservation> reserve(Notice.Refund refund, byte[] rawBody, Pickup pickup, Origin origin,
                                    Optional<Traceparent> cause) {
        Tuple row = Tuple.tuple()
                .addString(refund.merchantId())
                .addString(refund.channel().path())
                .addString(refund.refundNo().value())
                .addString(refund.channelRefundId())
                .addString(ChannelTradeNo.valueOrNull(refund.channelTradeNo()))
                .addString(OutTradeNo.valueOrNull(refund.outTradeNo()))
                .addString(refund.result().name())
                .addBigDecimal(Money.amountOrNull(refund.amount()))
                .addBigDecimal(Money.amountOrNull(refund.refundedTotal()))
                .addString(refund.currency())
                .addString(origin.column())
                .addString(Traceparent.valueOrNull(cause));
        KnownReservations.Key key = new KnownReservations.Key(CallbackTable.REFUND.leased(), refund.merchantId(),
                refund.channel(), refund.refundNo().value());
        return insert(key, INSERT_REFUND, row, rawBody, pickup);
    }

    public Uni<Reservation> reserve(Notice.RefundPending pending, byte[] rawBody, Pickup pickup,
                                    Optional<Traceparent> cause) {
        Tuple row = Tuple.tuple()
                .addString(pending.merchantId())
                .addString(pending.channel().path())
                .addString(pending.refundNo().value())
                .addString(pending.channelRefundId())
                .addString(ChannelTradeNo.valueOrNull(pending.channelTradeNo()))
                .addString(OutTradeNo.valueOrNull(pending.outTradeNo()))
                .addBigDecimal(pending.amount().amount())
                .addString(pending.amount().currency())
                .addString(Traceparent.valueOrNull(cause));
        KnownReservations.Key key = new KnownReservations.Key(PENDING_REFUNDS, pending.merchantId(), pending.channel(),
                pending.refundNo().value());
        return insert(key, INSERT_PENDING_REFUND, row, rawBody, pickup);
    }

    private Uni<Reservation> insert(KnownReservations.Key key, String sql, Tuple row, byte[] rawBody, Pickup pickup) {
        if (known.contains(key)) {
            return Uni.createFrom().item(new Reservation.AlreadyReserved());
        }
        boolean claim = pickup == Pickup.CALLER;
        String token = claim ? UUID.randomUUID().toString() : null;
        row.addString(token).addLong(claim ? leaseMicros : 0).addValue(Buffer.buffer(rawBody));
        return lostRaces.retried(pool.preparedQuery(sql).execute(row), LostRaces.At.RESERVATION)
                .<Reservation>map(rows -> {
                    long id = rows.property(MySQLClient.LAST_INSERTED_ID);
                    return new Reservation.Reserved(
                            claim ? Optional.of(new RowLease(key.table(), id, token, 0)) : Optional.empty());
                })
                .onFailure(MySqlErrors::isDuplicateKey).recoverWithItem(() -> {
                    known.remember(key);
                    return new Reservation.AlreadyReserved();
                });
    }
}
