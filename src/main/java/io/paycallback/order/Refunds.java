package io.paycallback.order;

import io.paycallback.ledger.MySqlErrors;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;

import java.math.BigDecimal;

/** The refunds table: refunds we asked for, and refunds we only learned of from the provider. */
@ApplicationScoped
public class Refunds {

    public static final String REQUESTED = "REQUESTED";
    public static final String SUCCEEDED = "SUCCEEDED";
    public static final String FAILED = "FAILED";

    static final String INSERT = """
            INSERT INTO refunds (merchant_id, channel, refund_no, channel_refund_id, out_trade_no, channel_trade_no,
                                 amount, currency, status, reason, created_at, updated_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NOW(3), NOW(3))""";
    static final String SETTLE = """
            UPDATE refunds SET status = ?, channel_refund_id = COALESCE(?, channel_refund_id), updated_at = NOW(3)
            WHERE merchant_id = ? AND channel = ? AND refund_no = ? AND status = 'REQUESTED'""";

    public record Refund(String merchantId, String channel, String refundNo, String channelRefundId, String outTradeNo,
                         String channelTradeNo, BigDecimal amount, String currency, String status, String reason) {
    }

    /** @return false when this refund was requested before (a replay): nothing new to do */
    public Uni<Boolean> request(SqlClient client, Refund refund) {
        return insert(client, refund).replaceWith(true).onFailure(MySqlErrors::isDuplicateKey).recoverWithItem(false);
    }

    /**
     * Settles a refund we requested (REQUESTED to a final state), or records one we did not request.
     *
     * @return whether this call changed anything: false means the refund was already settled, a repeat
     */
    public Uni<Boolean> settle(SqlClient client, Refund refund) {
        return client.preparedQuery(SETTLE)
                .execute(Tuple.tuple().addString(refund.status()).addString(refund.channelRefundId())
                        .addString(refund.merchantId()).addString(refund.channel()).addString(refund.refundNo()))
                .flatMap(updated -> updated.rowCount() == 1
                        ? Uni.createFrom().item(true)
                        // In MySQL a failed statement does not end the transaction, so a duplicate key is a plain answer.
                        : insert(client, refund).replaceWith(true)
                        .onFailure(MySqlErrors::isDuplicateKey).recoverWithItem(false));
    }

    private static Uni<?> insert(SqlClient client, Refund refund) {
        return client.preparedQuery(INSERT).execute(Tuple.tuple()
                .addString(refund.merchantId()).addString(refund.channel()).addString(refund.refundNo())
                .addString(refund.channelRefundId()).addString(refund.outTradeNo()).addString(refund.channelTradeNo())
                .addBigDecimal(refund.amount()).addString(refund.currency()).addString(refund.status())
                .addString(refund.reason()));
    }
}
