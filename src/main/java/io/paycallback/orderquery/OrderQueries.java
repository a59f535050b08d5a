package io.paycallback.orderquery;

import io.paycallback.db.MySqlErrors;
import io.paycallback.lease.LeasedTable;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** The order_queries table: PENDING orders whose payment we ask the providers about. */
@ApplicationScoped
public class OrderQueries {

    public static final LeasedTable TABLE = new LeasedTable("order_queries", "order-query", LeasedTable.Lateness.SINCE_DUE);

    // Read from orders, write to order_queries: single-table writes, as everywhere in the schema.
    static final String UNENROLLED = """
            SELECT o.merchant_id, o.out_trade_no FROM orders o
            WHERE o.status = 'PENDING' AND o.created_at <= DATE_SUB(NOW(3), INTERVAL ? MICROSECOND)
              AND NOT EXISTS (SELECT 1 FROM order_queries q
                              WHERE q.merchant_id = o.merchant_id AND q.out_trade_no = o.out_trade_no)
            ORDER BY o.created_at LIMIT ?""";
    static final String ENROL = """
            INSERT INTO order_queries (merchant_id, out_trade_no, status, retry_count, next_retry_at, created_at, updated_at)
            VALUES (?, ?, 0, 0, NOW(3), NOW(3), NOW(3))""";
    static final String FIND = "SELECT merchant_id, out_trade_no FROM order_queries WHERE id = ?";

    /** The order a query row is about. */
    public record OrderQuery(long id, String merchantId, String outTradeNo) {
    }

    private final Pool pool;

    public OrderQueries(Pool pool) {
        this.pool = pool;
    }

    /**
     * Enrols PENDING orders older than {@code after} that have no query row yet; any number of instances may do it
     * at once, the unique key keeps one row per order.
     *
     * @return how many orders were found to enrol
     */
    public Uni<Integer> enrol(Duration after, int limit) {
        return pool.preparedQuery(UNENROLLED).execute(Tuple.of(TimeUnit.MICROSECONDS.convert(after), limit))
                .flatMap(rows -> {
                    List<Tuple> found = new ArrayList<>();
                    for (Row row : rows) {
                        found.add(Tuple.of(row.getString("merchant_id"), row.getString("out_trade_no")));
                    }
                    // One INSERT per order: another instance enrolling the same order meanwhile is a duplicate key,
                    // which means "enrolled already", and must not fail the others.
                    return Multi.createFrom().iterable(found)
                            .onItem().transformToUniAndConcatenate(order -> pool.preparedQuery(ENROL).execute(order)
                                    .replaceWithVoid().onFailure(MySqlErrors::isDuplicateKey).recoverWithNull())
                            .collect().asList().replaceWith(found.size());
                });
    }

    public Uni<OrderQuery> find(SqlClient client, long id) {
        return client.preparedQuery(FIND).execute(Tuple.of(id)).map(rows -> {
            var iterator = rows.iterator();
            if (!iterator.hasNext()) {
                throw new IllegalStateException("order query #" + id + " is gone");
            }
            Row row = iterator.next();
            return new OrderQuery(id, row.getString("merchant_id"), row.getString("out_trade_no"));
        });
    }
}
