package io.paycallback.ops;

import io.paycallback.health.BacklogGauges;
import io.paycallback.health.RecentRefusals;
import io.paycallback.lease.LeasedTable;
import io.paycallback.lease.LeasedTableRegistry;
import io.paycallback.lease.RowStatus;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The state of the whole service at a glance: rows by status per leased table, the backlog, the last hour's refusals. */
@ApplicationScoped
public class OperationsOverview {

    /** One leased table's rows; a count is capped where counting further would cost too much. */
    public record Table(String table, String label, Map<RowStatus, StatusCounts.Count> byStatus, long stalePending) {
    }

    /**
     * @param healthy whether no pending row anywhere is stale (the "must be zero" monitor)
     */
    public record Overview(List<Table> tables, long stalePending, boolean healthy, long deadLetters, long quarantined,
                           RecentRefusals.Recent lastHour) {
    }

    private final LeasedTableRegistry tables;
    private final StatusCounts statusCounts;
    private final BacklogGauges backlog;
    private final RecentRefusals recent;

    public OperationsOverview(LeasedTableRegistry tables, StatusCounts statusCounts, BacklogGauges backlog,
                              RecentRefusals recent) {
        this.tables = tables;
        this.statusCounts = statusCounts;
        this.backlog = backlog;
        this.recent = recent;
    }

    @OperatorAction.Performs(OperatorAction.OVERVIEW)
    public Uni<ActionResult<Overview>> read() {
        return Uni.combine().all().unis(statusCounts.count(), backlog.count()).with((counts, gauges) -> {
            List<Table> rows = new ArrayList<>();
            long stale = 0;
            long dead = 0;
            for (LeasedTable table : tables.all()) {
                long tableStale = gauges.stalePending().get(table);
                stale += tableStale;
                dead += gauges.deadLetters().get(table);
                rows.add(new Table(table.table(), table.label(), counts.get(table), tableStale));
            }
            return ActionResult.done(new Overview(rows, stale, stale == 0, dead, gauges.quarantined(), recent.lastHour()),
                    stale == 0 ? "healthy" : stale + " stale pending");
        });
    }
}
