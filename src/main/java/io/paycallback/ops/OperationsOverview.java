package io.paycallback.ops;

import io.paycallback.delivery.DestinationControls;
import io.paycallback.delivery.DestinationState;
import io.paycallback.delivery.DestinationView;
import io.paycallback.delivery.FailureReason;
import io.paycallback.health.BacklogGauges;
import io.paycallback.health.RecentRefusals;
import io.paycallback.lease.LeasedTable;
import io.paycallback.lease.LeasedTableRegistry;
import io.paycallback.lease.RowStatus;
import io.paycallback.provider.ProviderClients;
import io.paycallback.provider.WxPayCertificates;
import io.paycallback.statement.Discrepancies;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * The state of the whole service at a glance: what needs a person, rows by status per leased table, the backlog, the
 * last hour's refusals. Drawn from counts the gauges make anyway, each destination's backlog and the open statement
 * differences: a few indexed reads.
 */
@ApplicationScoped
public class OperationsOverview {

    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss");
    /** How long before its last WeChat Pay certificate expires a merchant is shown: a week to find out why. */
    static final Duration EXPIRY_WARNING = Duration.ofDays(7);

    /** One leased table's rows; a count is capped where counting further would cost too much. */
    public record Table(String table, String label, Map<RowStatus, StatusCounts.Count> byStatus, long stalePending) {
    }

    /**
     * @param attention what needs a person, most urgent first; empty when nothing does
     * @param healthy   whether no pending row anywhere is stale (the "must be zero" monitor)
     */
    public record Overview(List<Attention> attention, List<Table> tables, long stalePending, boolean healthy,
                           long deadLetters, long quarantined, RecentRefusals.Recent lastHour) {
    }

    private final LeasedTableRegistry tables;
    private final StatusCounts statusCounts;
    private final BacklogGauges backlog;
    private final RecentRefusals recent;
    private final DestinationControls destinations;
    private final Discrepancies discrepancies;
    private final ProviderClients providers;
    private final Clock clock;

    public OperationsOverview(LeasedTableRegistry tables, StatusCounts statusCounts, BacklogGauges backlog,
                              RecentRefusals recent, DestinationControls destinations, Discrepancies discrepancies,
                              ProviderClients providers, Clock clock) {
        this.providers = providers;
        this.clock = clock;
        this.tables = tables;
        this.statusCounts = statusCounts;
        this.backlog = backlog;
        this.recent = recent;
        this.destinations = destinations;
        this.discrepancies = discrepancies;
    }

    @OperatorAction.Performs(OperatorAction.OVERVIEW)
    public Uni<ActionResult<Overview>> read() {
        return Uni.combine().all().unis(statusCounts.count(), backlog.count(), destinations.list(),
                discrepancies.openByKind()).with((counts, gauges, views, differences) -> {
            List<Attention> attention = new ArrayList<>();
            views.forEach(view -> destination(view, attention));
            providers.context().wxpayCertificates().held()
                    .forEach(set -> attention.addAll(certificates(set, clock.instant())));
            List<Table> rows = new ArrayList<>();
            long stale = 0;
            long dead = 0;
            for (LeasedTable table : tables.all()) {
                long tableStale = gauges.stalePending().get(table);
                long tableDead = gauges.deadLetters().get(table);
                stale += tableStale;
                dead += tableDead;
                rows.add(new Table(table.table(), table.label(), counts.get(table), tableStale));
                if (tableStale > 0) {
                    attention.add(new Attention(Attention.Concern.STALE_PENDING, table.label(), tableStale, null,
                            count(tableStale, "pending " + table.label() + " row") + " older than the stale threshold"));
                }
                if (tableDead > 0) {
                    attention.add(new Attention(Attention.Concern.DEAD_LETTERS, table.label(), tableDead, null,
                            count(tableDead, table.label() + " dead letter") + " to replay, requeue or resolve"));
                }
            }
            long open = differences.values().stream().mapToLong(Discrepancies.OpenCount::count).sum();
            if (open > 0) {
                long oldest = differences.values().stream().mapToLong(Discrepancies.OpenCount::oldestSeconds).max()
                        .orElse(0);
                attention.add(new Attention(Attention.Concern.STATEMENT_DIFFERENCES, "", open, null, count(open, "statement difference")
                        + " open, the oldest for " + Math.max(1, oldest / 3600) + " h"));
            }
            if (gauges.quarantined() > 0) {
                attention.add(new Attention(Attention.Concern.QUARANTINE, "", gauges.quarantined(), null,
                        count(gauges.quarantined(), "signed callback") + " held in quarantine"));
            }
            attention.sort(Comparator.comparing(Attention::concern));
            return ActionResult.done(new Overview(List.copyOf(attention), rows, stale, stale == 0, dead,
                    gauges.quarantined(), recent.lastHour()), attention.isEmpty() ? "nothing needs a person"
                    : attention.size() + " things need a person");
        }).onFailure().recoverWithItem(failure -> ActionResult.done(new Overview(List.of(new Attention(
                        Attention.Concern.DATABASE_UNREACHABLE, "", 0, null,
                        "this instance could not read the database: " + failure.getMessage())), List.of(), 0, false, 0, 0,
                recent.lastHour()), "the database could not be read"));
    }

    /** What a merchant's WeChat Pay certificates want of a person at {@code now}: nothing, or one concern or two. */
    static List<Attention> certificates(WxPayCertificates.HeldSet set, Instant now) {
        List<Attention> concerns = new ArrayList<>();
        if (set.failing()) {
            concerns.add(new Attention(Attention.Concern.CERTIFICATES_FAILING, set.mchid(), 1, null,
                    "WeChat Pay platform certificates of mchid " + set.mchid() + " could not be downloaded: a notice"
                            + " signed by a new serial will not verify"));
        }
        set.lastExpiry().filter(expiry -> expiry.isBefore(now.plus(EXPIRY_WARNING))).ifPresent(expiry -> concerns.add(
                new Attention(Attention.Concern.CERTIFICATES_EXPIRING, set.mchid(), 1, null, "the last WeChat Pay"
                        + " platform certificate of mchid " + set.mchid() + " expires at " + expiry)));
        return concerns;
    }

    private static String count(long n, String noun) {
        return n + " " + noun + (n == 1 ? "" : "s");
    }

    private static void destination(DestinationView view, List<Attention> attention) {
        if (view.state() != DestinationState.DISABLED && view.state() != DestinationState.OPEN
                && view.state() != DestinationState.HALF_OPEN) {
            return;
        }
        boolean disabled = view.state() == DestinationState.DISABLED;
        long waiting = view.backlog();
        LocalDateTime oldest = view.oldestPendingAt();
        attention.add(new Attention(disabled ? Attention.Concern.DESTINATION_DISABLED : Attention.Concern.DESTINATION_OPEN,
                view.name(), waiting, oldest, "destination " + view.name() + " is " + (disabled ? "disabled" : "open")
                + (view.reason() == null ? "" : " (" + FailureReason.read(view.reason()).said() + ")")
                + ": " + count(waiting, "event") + " waiting" + (oldest == null ? "" : ", the oldest since " + TIME.format(oldest))));
    }
}
