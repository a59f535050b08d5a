package io.paycallback.statement;

import io.paycallback.provider.ProviderClients;
import io.paycallback.trade.ChannelId;
import io.quarkus.scheduler.Scheduled;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

import java.time.Clock;
import java.time.Duration;
import java.time.LocalDate;

/**
 * Every day, per provider, enrols yesterday's run (in the provider's zone) for every merchant with API keys there;
 * the scanner then works the runs off like any leased row. Every instance may enrol: the unique key of a run keeps one
 * per merchant, provider and date (a duplicate key means "enrolled already"). Also opens what waited out its
 * cross-day window, so that happens even on a day without runs.
 */
@ApplicationScoped
public class StatementSchedule {

    private static final Logger LOG = Logger.getLogger(StatementSchedule.class);
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private final Pool pool;
    private final StatementRuns runs;
    private final Comparison comparison;
    private final ProviderClients providers;
    private final Clock clock;

    public StatementSchedule(Pool pool, StatementRuns runs, Comparison comparison, ProviderClients providers,
                             Clock clock) {
        this.pool = pool;
        this.runs = runs;
        this.comparison = comparison;
        this.providers = providers;
        this.clock = clock;
    }

    @Scheduled(cron = "${paycallback.statements.wxpay.cron}", timeZone = "Asia/Shanghai",
            concurrentExecution = Scheduled.ConcurrentExecution.SKIP, skipExecutionIf = Scheduled.ApplicationNotRunning.class)
    void wxpay() {
        daily(ChannelId.WXPAY);
    }

    @Scheduled(cron = "${paycallback.statements.alipay.cron}", timeZone = "Asia/Shanghai",
            concurrentExecution = Scheduled.ConcurrentExecution.SKIP, skipExecutionIf = Scheduled.ApplicationNotRunning.class)
    void alipay() {
        daily(ChannelId.ALIPAY);
    }

    @Scheduled(cron = "${paycallback.statements.stripe.cron}", timeZone = "UTC",
            concurrentExecution = Scheduled.ConcurrentExecution.SKIP, skipExecutionIf = Scheduled.ApplicationNotRunning.class)
    void stripe() {
        daily(ChannelId.STRIPE);
    }

    private void daily(ChannelId channel) {
        try {
            int enrolled = enrol(channel, yesterday(channel));
            int opened = comparison.openDue(pool).await().atMost(TIMEOUT);
            LOG.infof("Statements %s: %d runs enrolled for %s, %d discrepancies out of their window", channel.path(),
                    enrolled, yesterday(channel), opened);
        } catch (RuntimeException e) {
            LOG.warnf("Enrolling %s statement runs failed, the next day's schedule or a re-run catches up: %s",
                    channel.path(), e.toString());
        }
    }

    /** The provider's yesterday, by the injected clock. */
    public LocalDate yesterday(ChannelId channel) {
        return LocalDate.now(clock.withZone(Providers.zone(channel))).minusDays(1);
    }

    /** Enrols the date's run for every merchant with keys for the provider; blocking. @return how many were new */
    public int enrol(ChannelId channel, LocalDate billDate) {
        int enrolled = 0;
        for (String merchant : providers.merchants(channel)) {
            if (runs.enrol(pool, merchant, channel, billDate).await().atMost(TIMEOUT)) {
                enrolled++;
            }
        }
        return enrolled;
    }
}
