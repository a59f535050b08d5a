package io.paycallback.lease;

import io.paycallback.testsupport.Db;
import io.paycallback.testsupport.Ids;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The batch finish must reach its rows through a key range whatever the batch's size: a statement that walks the
 * table locks every row of it, and on the outbox that stalled every other writer (MariaDB 10.11 walks the whole
 * primary key for a single-pair row-constructor IN).
 */
@QuarkusTest
class LeaseFinishPlanTest {

    @Inject
    Pool pool;

    @Test
    void aFinishOfOneOrManyLeasesReadsOnlyTheirRows() {
        String token = Ids.unique("token-");
        String source = Ids.unique("plan-");
        List<Tuple> rows = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            rows.add(Tuple.of(source + "-" + i, token));
        }
        pool.preparedQuery("""
                        INSERT INTO outbox (source, type, destination, merchant_id, out_trade_no, payload, status,
                            retry_count, lease_token, next_retry_at, created_at, updated_at)
                        VALUES (?, 'order.paid', 'plan', 'default', 'ORD-PLAN', '{}', 0, 0, ?, NOW(3) + INTERVAL 1 DAY, NOW(3),
                            NOW(3))""")
                .executeBatch(rows).await().indefinitely();
        Db db = new Db(pool);
        try {
            pool.query("ANALYZE TABLE outbox").execute().await().indefinitely();
            List<Long> ids = db.rows("SELECT id FROM outbox WHERE source LIKE ? ORDER BY id", source + "-%")
                    .stream().map(row -> row.getLong("id")).toList();

            for (int size : new int[]{1, 2, 50}) {
                Row plan = explain(ids.subList(100, 100 + size), token);
                assertThat(plan.getString("type")).as("access type for %d leases", size)
                        .isIn("range", "const", "eq_ref", "ref");
                // EXPLAIN answers over the text protocol: "rows" arrives as a string.
                assertThat(Long.parseLong(String.valueOf(plan.getValue("rows"))))
                        .as("rows read for %d leases", size).isLessThanOrEqualTo(size * 2L);
            }
        } finally {
            db.update("DELETE FROM outbox WHERE source LIKE ?", source + "-%");
        }
    }

    private Row explain(List<Long> ids, String token) {
        StringBuilder idList = new StringBuilder();
        StringBuilder pairs = new StringBuilder();
        for (long id : ids) {
            idList.append(idList.isEmpty() ? "" : ", ").append(id);
            pairs.append(pairs.isEmpty() ? "" : ", ").append('(').append(id).append(", '").append(token).append("')");
        }
        String sql = LeaseStatements.FINISH_ALL.formatted("outbox", "", idList, pairs);
        return pool.query("EXPLAIN " + sql).execute().await().indefinitely().iterator().next();
    }
}
