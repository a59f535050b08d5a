package io.paycallback.health;

import io.paycallback.trend.TrendRecorder;
import io.paycallback.trend.TrendSeries;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.paycallback.lease.LeasedTable;
import io.paycallback.lease.LeasedTableRegistry;
import io.quarkus.runtime.Startup;
import io.quarkus.scheduler.Scheduled;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.TimeUnit;

/**
 * The gauges an operator alerts on, recounted on a schedule rather than per scrape. Each count is a range on the
 * (status, next_retry_at) index, whose pending and dead ranges stay small while the service is healthy.
 * <ul>
 * <li>{@code paycallback_backlog_stale_pending{table}}: pending rows that arrived more than an hour ago. Must be 0:
 * anything else means processing is stuck (the article's "must be zero" monitor).</li>
 * <li>{@code paycallback_dead_letters{table}}: rows given up on, waiting for a person.</li>
 * <li>{@code paycallback_quarantine_rows}: signed callbacks we could not parse.</li>
 * </ul>
 */
@Startup
@ApplicationScoped
public class BacklogGauges {

    private static final Logger LOG = Logger.getLogger(BacklogGauges.class);

    static final String STALE_PENDING = "paycallback.backlog.stale.pending";
    static final String DEAD_LETTERS = "paycallback.dead.letters";
    static final String QUARANTINE = "paycallback.quarantine.rows";

    private static final String COUNT_STALE = "SELECT COUNT(*) FROM %s WHERE status = 0 AND created_at < DATE_SUB(NOW(3), INTERVAL ? MICROSECOND)";
    // For tables whose rows wait by design (LeasedTable.Lateness.SINCE_DUE) only a try overdue by the threshold is backlog.
    private static final String COUNT_OVERDUE = "SELECT COUNT(*) FROM %s WHERE status = 0 AND next_retry_at < DATE_SUB(NOW(3), INTERVAL ? MICROSECOND)";
    private static final String COUNT_DEAD = "SELECT COUNT(*) FROM %s WHERE status = 2";
    private static final String COUNT_QUARANTINE = "SELECT COUNT(*) FROM quarantine";

    private final Pool pool;
    private final long staleMicros;
    private final List<LeasedTable> tables;
    private final Map<LeasedTable, AtomicLong> stale = new HashMap<>();
    private final Map<LeasedTable, AtomicLong> dead = new HashMap<>();
    private final AtomicLong quarantined = new AtomicLong();
    private final TrendRecorder trends;

    public BacklogGauges(Pool pool, LeasedTableRegistry tables, MeterRegistry registry, HealthConfig config,
                         TrendRecorder trends) {
        this.pool = pool;
        this.trends = trends;
        this.tables = tables.all();
        this.staleMicros = TimeUnit.MICROSECONDS.convert(config.stalePendingAfter());
        for (LeasedTable table : this.tables) {
            stale.put(table, register(registry, STALE_PENDING, table, "Pending rows older than the stale threshold; must be 0"));
            dead.put(table, register(registry, DEAD_LETTERS, table, "Rows given up on, waiting for a person"));
        }
        Gauge.builder(QUARANTINE, quarantined, AtomicLong::get)
                .description("Signed callbacks that could not be parsed").register(registry);
    }

    private static AtomicLong register(MeterRegistry registry, String name, LeasedTable table, String description) {
        AtomicLong value = new AtomicLong();
        Gauge.builder(name, value, AtomicLong::get).tag("table", table.table()).description(description).register(registry);
        return value;
    }

    @Scheduled(every = "${paycallback.monitoring.gauge-interval}", concurrentExecution = Scheduled.ConcurrentExecution.SKIP,
            skipExecutionIf = Scheduled.ApplicationNotRunning.class)
    void refresh() {
        try {
            recount(Duration.ofSeconds(10));
        } catch (RuntimeException e) {
            LOG.warnf("Could not recount backlog gauges: %s", e.toString());
        }
    }

    /** What the gauges show, counted now. */
    public record Backlog(Map<LeasedTable, Long> stalePending, Map<LeasedTable, Long> deadLetters, long quarantined) {
    }

    /** Recounts every gauge now; blocking, for the scheduler's worker thread and for tests. */
    public void recount(Duration timeout) {
        count().await().atMost(timeout);
    }

    /** Counts what the gauges show, sets them, and answers the counts (for the console, which must not show stale ones). */
    public Uni<Backlog> count() {
        List<Uni<Long>> counts = new ArrayList<>();
        for (LeasedTable table : tables) {
            String stalePending = switch (table.lateness()) {
                case SINCE_ARRIVAL -> COUNT_STALE;
                case SINCE_DUE -> COUNT_OVERDUE;
            };
            counts.add(count(stalePending.formatted(table.table()), Tuple.of(staleMicros)));
            counts.add(count(COUNT_DEAD.formatted(table.table()), Tuple.tuple()));
        }
        counts.add(count(COUNT_QUARANTINE, Tuple.tuple()));
        return Uni.join().all(counts).andFailFast().map(values -> {
            Map<LeasedTable, Long> stalePending = new HashMap<>();
            Map<LeasedTable, Long> deadLetters = new HashMap<>();
            for (int i = 0; i < tables.size(); i++) {
                LeasedTable table = tables.get(i);
                stalePending.put(table, values.get(2 * i));
                deadLetters.put(table, values.get(2 * i + 1));
                stale.get(table).set(values.get(2 * i));
                dead.get(table).set(values.get(2 * i + 1));
                trends.sample(TrendSeries.DEAD_LETTERS, table.label(), values.get(2 * i + 1));
            }
            long quarantine = values.get(values.size() - 1);
            quarantined.set(quarantine);
            return new Backlog(stalePending, deadLetters, quarantine);
        });
    }

    private Uni<Long> count(String sql, Tuple params) {
        return pool.preparedQuery(sql).execute(params).map(rows -> rows.iterator().next().getLong(0));
    }
}
