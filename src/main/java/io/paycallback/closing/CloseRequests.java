package io.paycallback.closing;

import io.paycallback.lease.RowLease;
import io.paycallback.lease.LeasedTable;
import io.paycallback.tracing.Traceparent;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.mysqlclient.MySQLClient;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.Duration;
import java.time.LocalDateTime;
import java.util.Locale;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/** The close_requests table: orders being closed at their providers. */
@ApplicationScoped
public class CloseRequests {

    public static final LeasedTable TABLE = new LeasedTable("close_requests", "close-request", LeasedTable.Lateness.SINCE_ARRIVAL);

    // Written already leased to its writer, who makes the first try at once (the caller waits for it).
    static final String INSERT = """
            INSERT INTO close_requests (merchant_id, out_trade_no, requested_by, traceparent, status, retry_count,
                                        lease_token, next_retry_at, created_at, updated_at)
            VALUES (?, ?, ?, ?, 0, 0, ?, DATE_ADD(NOW(3), INTERVAL ? MICROSECOND), NOW(3), NOW(3))""";
    static final String FIND = "SELECT merchant_id, out_trade_no, requested_by, traceparent FROM close_requests WHERE id = ?";
    static final String SET_OUTCOME = "UPDATE close_requests SET outcome = ? WHERE id = ?";
    static final String FOR_ORDER = """
            SELECT requested_by, outcome, status, retry_count, last_error, created_at, updated_at
            FROM close_requests WHERE merchant_id = ? AND out_trade_no = ?""";

    /** How a close request ended. */
    public enum Ending {
        /** Every provider said the buyer can no longer pay: the order is CLOSED. */
        CLOSED,
        /** A provider said the buyer paid, or a payment arrived first: the order is (becoming) PAID. */
        PAID,
        /** The order left CLOSING some other way (an operator). */
        ENDED;

        String column() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** The order a close request is about. */
    /** @param traceparent the span of the request that asked for the close */
    public record CloseRequest(long id, String merchantId, String outTradeNo, String requestedBy,
                               Optional<Traceparent> traceparent) {
    }

    /** A close request as the order's timeline shows it. */
    public record Listed(String requestedBy, String outcome, int status, int tries, String lastError,
                         LocalDateTime createdAt, LocalDateTime updatedAt) {
    }

    /** Inserts the request leased to the caller; in the caller's transaction, beside PENDING → CLOSING. */
    /** @param cause the span of the request, which the close's tries continue */
    public Uni<RowLease> insertLeased(SqlClient client, String merchantId, String outTradeNo, String requestedBy,
                                   Optional<Traceparent> cause, Duration leaseTime) {
        String token = UUID.randomUUID().toString();
        return client.preparedQuery(INSERT)
                .execute(Tuple.of(merchantId, outTradeNo, requestedBy, Traceparent.valueOrNull(cause), token,
                        TimeUnit.MICROSECONDS.convert(leaseTime)))
                .map(rows -> new RowLease(CloseRequests.TABLE, rows.property(MySQLClient.LAST_INSERTED_ID), token, 0));
    }

    public Uni<CloseRequest> find(SqlClient client, long id) {
        return client.preparedQuery(FIND).execute(Tuple.of(id)).map(rows -> {
            var iterator = rows.iterator();
            if (!iterator.hasNext()) {
                throw new IllegalStateException("close request #" + id + " is gone");
            }
            Row row = iterator.next();
            return new CloseRequest(id, row.getString("merchant_id"), row.getString("out_trade_no"),
                    row.getString("requested_by"), Traceparent.parse(row.getString("traceparent")));
        });
    }

    public Uni<Void> setOutcome(SqlClient client, long id, Ending outcome) {
        return client.preparedQuery(SET_OUTCOME).execute(Tuple.of(outcome.column(), id)).replaceWithVoid();
    }

    public Uni<Optional<Listed>> forOrder(SqlClient client, String merchantId, String outTradeNo) {
        return client.preparedQuery(FOR_ORDER).execute(Tuple.of(merchantId, outTradeNo)).map(rows -> {
            var iterator = rows.iterator();
            if (!iterator.hasNext()) {
                return Optional.empty();
            }
            Row row = iterator.next();
            return Optional.of(new Listed(row.getString("requested_by"), row.getString("outcome"),
                    row.getInteger("status"), row.getInteger("retry_count"), row.getString("last_error"),
                    row.getLocalDateTime("created_at"), row.getLocalDateTime("updated_at")));
        });
    }
}
