package io.paycallback.order;

import io.paycallback.db.UnknownValueException;
import io.paycallback.db.MySqlErrors;
import io.paycallback.lease.LeasedTable;
import io.paycallback.tracing.Traceparent;
import io.paycallback.trade.ChannelTradeNo;
import io.paycallback.trade.Money;
import io.paycallback.trade.OutTradeNo;
import io.paycallback.trade.RefundNo;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;

import java.math.BigDecimal;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** The refunds table: refunds we asked for, and refunds we only learned of from the provider. */
@ApplicationScoped
public class Refunds {

    /** Refunds to submit to the provider and ask about until final; enrolled here with the refund they submit. */
    public static final LeasedTable SUBMISSIONS = new LeasedTable("refund_submissions", "refund-submission", LeasedTable.Lateness.SINCE_ARRIVAL);

    static final String INSERT = """
            INSERT INTO refunds (merchant_id, channel, refund_no, channel_refund_id, out_trade_no, channel_trade_no,
                                 amount, refunded_total, currency, status, reason, created_at, updated_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NOW(3), NOW(3))""";
    static final String SETTLE = """
            UPDATE refunds SET status = ?, channel_refund_id = COALESCE(?, channel_refund_id),
                amount = COALESCE(?, amount), refunded_total = ?, updated_at = NOW(3)
            WHERE merchant_id = ? AND channel = ? AND refund_no = ? AND status IN ('REQUESTED', 'SUBMITTED')""";
    static final String QUEUE_SUBMISSION = """
            INSERT INTO refund_submissions (merchant_id, channel, refund_no, traceparent, status, retry_count,
                                            next_retry_at, created_at, updated_at)
            VALUES (?, ?, ?, ?, 0, 0, NOW(3), NOW(3), NOW(3))""";
    static final String FIND_REQUEST = """
            SELECT status, channel_refund_id, out_trade_no, channel_trade_no, amount, currency, reason
            FROM refunds WHERE merchant_id = ? AND channel = ? AND refund_no = ?""";
    static final String MARK_SUBMITTED = """
            UPDATE refunds SET status = 'SUBMITTED', channel_refund_id = COALESCE(?, channel_refund_id), updated_at = NOW(3)
            WHERE merchant_id = ? AND channel = ? AND refund_no = ? AND status = 'REQUESTED'""";
    static final String FOR_ORDER = """
            SELECT channel, refund_no, channel_refund_id, amount, refunded_total, currency, status, reason, created_at,
                   updated_at
            FROM refunds WHERE merchant_id = ? AND out_trade_no = ? ORDER BY id""";
    static final String FIND_CURRENT = """
            SELECT status, amount FROM refunds WHERE merchant_id = ? AND channel = ? AND refund_no = ? FOR UPDATE""";
    // A locking read: it must see refunds committed after this transaction's snapshot was taken.
    static final String REFUNDED_CURRENT = """
            SELECT COALESCE(MAX(refunded_total), 0) AS reported, COALESCE(SUM(amount), 0) AS listed
            FROM refunds
            WHERE merchant_id = ? AND channel = ? AND channel_trade_no = ? AND status = 'SUCCEEDED'
            FOR UPDATE""";

    /**
     * @param channelTradeNo null only for a refund whose notice named no payment
     * @param outTradeNo     null only for a refund whose notice named no order
     * @param amount        the refund's own amount: what we asked for, or what the provider's notice stated; null when
     *                      the notice only reported a running total
     * @param refundedTotal the payment's running total refunded that the settling notice reported, or null
     */
    public record Refund(String merchantId, String channel, RefundNo refundNo, String channelRefundId,
                         ChannelTradeNo channelTradeNo, OutTradeNo outTradeNo, BigDecimal amount, BigDecimal refundedTotal,
                         String currency, RefundStatus status, String reason) {
    }

    /**
     * A refund as it is to be submitted, and what its submission brought back.
     *
     * @param outTradeNo     null only for a refund learned of from a notice that named no order
     * @param channelTradeNo null only for a refund learned of from a notice that named no payment
     * @param amount         the refund's own amount, in its currency
     */
    public record Request(RefundStatus status, String channelRefundId, OutTradeNo outTradeNo, ChannelTradeNo channelTradeNo,
                          Money amount, String reason) {
    }

    /** A refund of an order as an operator reads it. */
    public record Listed(String channel, String refundNo, String channelRefundId, BigDecimal amount,
                         BigDecimal refundedTotal, String currency, RefundStatus status, String reason,
                         LocalDateTime createdAt, LocalDateTime updatedAt) {
    }

    /** What the table already holds under a refund's key. */
    public record Existing(RefundStatus status, BigDecimal amount) {
    }

    /**
     * @param submit whether the merchant has API keys for the refund's provider: its submission is then queued in the
     *               same transaction, so a refund we decided on is never left unsubmitted
     * @return false when this refund was requested before (a replay): nothing new to do
     */
    /** @param cause the span that decided on the refund, which its submission's tries continue */
    public Uni<Boolean> request(SqlClient client, Refund refund, boolean submit, Optional<Traceparent> cause) {
        Uni<?> written = insert(client, refund);
        if (submit) {
            written = written.chain(() -> client.preparedQuery(QUEUE_SUBMISSION)
                    .execute(Tuple.of(refund.merchantId(), refund.channel(), refund.refundNo().value(),
                            Traceparent.valueOrNull(cause))));
        }
        return written.replaceWith(true).onFailure(MySqlErrors::isDuplicateKey).recoverWithItem(false);
    }

    public Uni<Optional<Request>> findRequest(SqlClient client, String merchantId, String channel, String refundNo) {
        return client.preparedQuery(FIND_REQUEST).execute(Tuple.of(merchantId, channel, refundNo)).map(rows -> {
            var iterator = rows.iterator();
            if (!iterator.hasNext()) {
                return Optional.empty();
            }
            return Optional.of(toRequest(iterator.next()));
        });
    }

    private static Request toRequest(Row row) {
        return new Request(known(row.getString("status")), row.getString("channel_refund_id"),
                OutTradeNo.ofNullable(row.getString("out_trade_no")),
                ChannelTradeNo.ofNullable(row.getString("channel_trade_no")),
                new Money(row.getBigDecimal("amount"), row.getString("currency")), row.getString("reason"));
    }

    /** A status to decide on: one this build does not know is left for a release that does. */
    private static RefundStatus known(String stored) {
        RefundStatus status = RefundStatus.stored(stored);
        if (status == RefundStatus.UNKNOWN) {
            throw new UnknownValueException("refunds.status", stored);
        }
        return status;
    }

    /** Every refund of one order, oldest first. */
    public Uni<List<Listed>> forOrder(SqlClient client, String merchantId, String outTradeNo) {
        return client.preparedQuery(FOR_ORDER).execute(Tuple.of(merchantId, outTradeNo)).map(rows -> {
            List<Listed> found = new ArrayList<>();
            for (Row row : rows) {
                found.add(new Listed(row.getString("channel"), row.getString("refund_no"), row.getString("channel_refund_id"),
                        row.getBigDecimal("amount"), row.getBigDecimal("refunded_total"), row.getString("currency"),
                        RefundStatus.stored(row.getString("status")), row.getString("reason"),
                        row.getLocalDateTime("created_at"), row.getLocalDateTime("updated_at")));
            }
            return found;
        });
    }

    /** REQUESTED to SUBMITTED once the provider accepted it; a refund its notice settled meanwhile stays settled. */
    public Uni<Boolean> markSubmitted(SqlClient client, String merchantId, String channel, String refundNo,
                                      String channelRefundId) {
        return client.preparedQuery(MARK_SUBMITTED).execute(Tuple.of(channelRefundId, merchantId, channel, refundNo))
                .map(rows -> rows.rowCount() == 1);
    }

    /** A locking read of the refund with this key, if the table has it. */
    public Uni<Optional<Existing>> findCurrent(SqlClient client, String merchantId, String channel, RefundNo refundNo) {
        return client.preparedQuery(FIND_CURRENT).execute(Tuple.of(merchantId, channel, refundNo.value())).map(rows -> {
            var iterator = rows.iterator();
            if (!iterator.hasNext()) {
                return Optional.empty();
            }
            Row row = iterator.next();
            return Optional.of(new Existing(known(row.getString("status")), row.getBigDecimal("amount")));
        });
    }

    /** The payment's refunded total as its settled refunds tell it, read under lock. */
    public Uni<RefundedTotal> refundedCurrent(SqlClient client, String merchantId, String channel,
                                               ChannelTradeNo channelTradeNo) {
        return client.preparedQuery(REFUNDED_CURRENT).execute(Tuple.of(merchantId, channel, channelTradeNo.value())).map(rows -> {
            Row row = rows.iterator().next();
            return new RefundedTotal(row.getBigDecimal("reported"), row.getBigDecimal("listed"));
        });
    }

    /**
     * Settles a refund we requested (REQUESTED or SUBMITTED to a final state), or records one we did not request.
     *
     * @return whether this call changed anything: false means the refund was already settled, a repeat
     */
    public Uni<Boolean> settle(SqlClient client, Refund refund) {
        return client.preparedQuery(SETTLE)
                .execute(Tuple.tuple().addString(refund.status().name()).addString(refund.channelRefundId())
                        .addBigDecimal(refund.amount()).addBigDecimal(refund.refundedTotal())
                        .addString(refund.merchantId()).addString(refund.channel()).addString(refund.refundNo().value()))
                .flatMap(updated -> updated.rowCount() == 1
                        ? Uni.createFrom().item(true)
                        // In MySQL a failed statement does not end the transaction, so a duplicate key is a plain answer.
                        : insert(client, refund).replaceWith(true)
                        .onFailure(MySqlErrors::isDuplicateKey).recoverWithItem(false));
    }

    private static Uni<?> insert(SqlClient client, Refund refund) {
        return client.preparedQuery(INSERT).execute(Tuple.tuple()
                .addString(refund.merchantId()).addString(refund.channel()).addString(refund.refundNo().value())
                .addString(refund.channelRefundId()).addString(OutTradeNo.valueOrNull(refund.outTradeNo()))
                .addString(ChannelTradeNo.valueOrNull(refund.channelTradeNo()))
                .addBigDecimal(refund.amount()).addBigDecimal(refund.refundedTotal()).addString(refund.currency())
                .addString(refund.status().name()).addString(refund.reason()));
    }
}
