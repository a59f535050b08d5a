package io.paycallback.ops;

import io.paycallback.lease.LeasedTable;
import io.paycallback.lease.LeasedTableRegistry;
import io.paycallback.lease.RowStatus;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Rows per status of every leased table, for the console's overview. Each count stops at {@link #CAP}: done rows
 * number in the millions over the retention, and counting them all on every page view would scan the index each time.
 */
@ApplicationScoped
public class StatusCounts {

    public static final int CAP = 100_000;

    static final String COUNT_CAPPED = "SELECT COUNT(*) FROM (SELECT 1 FROM %s WHERE status = ? LIMIT ?) capped";

    /** A count; {@code capped} when there are at least {@link #CAP} rows and the count stopped there. */
    public record Count(long rows, boolean capped) {
    }

    /** Every status a row of this build can have. */
    private static final List<RowStatus> COUNTED = List.of(RowStatus.PENDING, RowStatus.DONE, RowStatus.DEAD,
            RowStatus.COMPACTED);

    private final Pool pool;
    private final LeasedTableRegistry tables;

    public StatusCounts(Pool pool, LeasedTableRegistry tables) {
        this.pool = pool;
        this.tables = tables;
    }

    public Uni<Map<LeasedTable, Map<RowStatus, Count>>> count() {
        List<Uni<Long>> counts = new ArrayList<>();
        for (LeasedTable table : tables.all()) {
            for (RowStatus status : COUNTED) {
                counts.add(pool.preparedQuery(COUNT_CAPPED.formatted(table.table()))
                        .execute(Tuple.of(status.code(), CAP)).map(rows -> rows.iterator().next().getLong(0)));
            }
        }
        return Uni.join().all(counts).andFailFast().map(values -> {
            Map<LeasedTable, Map<RowStatus, Count>> byTable = new LinkedHashMap<>();
            int i = 0;
            for (LeasedTable table : tables.all()) {
                Map<RowStatus, Count> byStatus = new EnumMap<>(RowStatus.class);
                for (RowStatus status : COUNTED) {
                    long rows = values.get(i++);
                    byStatus.put(status, new Count(rows, rows >= CAP));
                }
                byTable.put(table, byStatus);
            }
            return byTable;
        });
    }
}
