package io.paycallback.statement;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.paycallback.config.MonitoringConfig;
import io.paycallback.provider.ProviderClients;
import io.paycallback.trade.ChannelId;
import io.quarkus.runtime.Startup;
import io.quarkus.scheduler.Scheduled;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

import java.time.Clock;
import java.time.Duration;
import java.util.EnumMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Runs by result, lines compared, open discrepancies by kind and the age of the oldest, and when each provider's last
 * run compared its bill (for the alert on a provider with no successful run for a day). The gauges are database
 * counts, recounted every {@code monitoring.gauge-interval}, the same on every pod.
 */
@Startup
@ApplicationScoped
public class StatementMetrics {

    private static final Logger LOG = Logger.getLogger(StatementMetrics.class);

    static final String RUNS = "paycallback.statement.runs";
    static final String LINES = "paycallback.statement.lines";
    static final String OPEN = "paycallback.statement.discrepancies.open";
    static final String OLDEST_OPEN = "paycallback.statement.discrepancy.oldest.open.seconds";
    static final String LAST_SUCCESS = "paycallback.statement.last.success.timestamp.seconds";

    /** The closed set of what a run's try came to. */
    public enum RunTry {
        MATCHED, DIFFERENCES, CREATING, FAILED, DEAD;

        String tag() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    private final MeterRegistry registry;
    private final Discrepancies discrepancies;
    private final StatementRuns runs;
    private final Clock clock;
    private final Map<DiscrepancyKind, AtomicLong> open = new EnumMap<>(DiscrepancyKind.class);
    private final AtomicLong oldestOpenSeconds = new AtomicLong();
    private final Map<ChannelId, AtomicLong> lastSuccess = new ConcurrentHashMap<>();
    private final ProviderClients providers;
    /** A recount slower than the interval is given up: the next one starts then. */
    private final Duration recountWithin;

    public StatementMetrics(MeterRegistry registry, Discrepancies discrepancies, StatementRuns runs,
                            ProviderClients providers, Clock clock, MonitoringConfig monitoring) {
        this.registry = registry;
        this.discrepancies = discrepancies;
        this.runs = runs;
        this.clock = clock;
        this.providers = providers;
        this.recountWithin = monitoring.gaugeInterval();
        for (ChannelId channel : ChannelId.values()) {
            for (RunTry result : RunTry.values()) {
                runs(channel, result);
            }
            lines(channel);
        }
        expectRuns();
        for (DiscrepancyKind kind : DiscrepancyKind.values()) {
            if (kind == DiscrepancyKind.UNKNOWN) {
                continue;
            }
            AtomicLong count = new AtomicLong();
            open.put(kind, count);
            Gauge.builder(OPEN, count, AtomicLong::get).tag("kind", kind.name().toLowerCase(Locale.ROOT))
                    .description("Open statement discrepancies, for a person").register(registry);
        }
        Gauge.builder(OLDEST_OPEN, oldestOpenSeconds, AtomicLong::get)
                .description("How long the oldest open statement discrepancy has been open (0: none)").register(registry);
    }

    void run(ChannelId channel, RunTry result) {
        runs(channel, result).increment();
    }

    void linesCompared(ChannelId channel, long count) {
        lines(channel).increment(count);
    }

    @Scheduled(every = "${paycallback.monitoring.gauge-interval}", concurrentExecution = Scheduled.ConcurrentExecution.SKIP,
            skipExecutionIf = Scheduled.ApplicationNotRunning.class)
    void refresh() {
        try {
            recount(recountWithin);
        } catch (RuntimeException e) {
            LOG.warnf("Could not recount the statement gauges: %s", e.toString());
        }
    }

    /** Recounts the gauges now; blocking, for the scheduler and tests. Ages come from the database's clock. */
    /**
     * Only providers somebody has keys for are expected to run; until one succeeds, the time it was first expected
     * counts. The merchant registry can give a provider its first keys at any time, so this is asked at every recount.
     */
    private void expectRuns() {
        for (ChannelId channel : ChannelId.values()) {
            if (!lastSuccess.containsKey(channel) && !providers.merchants(channel).isEmpty()) {
                AtomicLong since = new AtomicLong(clock.instant().getEpochSecond());
                lastSuccess.put(channel, since);
                Gauge.builder(LAST_SUCCESS, since, AtomicLong::get).tag("channel", channel.path())
                        .description("When a statement run of the provider last compared its bill (or since it was first expected)")
                        .register(registry);
            }
        }
    }

    public void recount(Duration timeout) {
        expectRuns();
        Map<DiscrepancyKind, Discrepancies.OpenCount> counts = discrepancies.openByKind().await().atMost(timeout);
        long oldest = 0;
        for (var entry : counts.entrySet()) {
            open.get(entry.getKey()).set(entry.getValue().count());
            oldest = Math.max(oldest, entry.getValue().oldestSeconds());
        }
        oldestOpenSeconds.set(oldest);
        long now = clock.instant().getEpochSecond();
        for (StatementRuns.LastSuccess last : runs.lastSuccesses().await().atMost(timeout)) {
            AtomicLong gauge = lastSuccess.get(last.channel());
            if (gauge != null) {
                gauge.accumulateAndGet(now - last.ageSeconds(), Math::max);
            }
        }
    }

    private Counter runs(ChannelId channel, RunTry result) {
        return Counter.builder(RUNS).description("Statement run tries, by result")
                .tags("channel", channel.path(), "result", result.tag()).register(registry);
    }

    private Counter lines(ChannelId channel) {
        return Counter.builder(LINES).description("Bill lines compared with the ledger")
                .tag("channel", channel.path()).register(registry);
    }
}
