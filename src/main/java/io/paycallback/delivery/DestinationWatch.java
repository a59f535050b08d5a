package io.paycallback.delivery;

import io.paycallback.trend.TrendRecorder;
import io.paycallback.trend.TrendSeries;
import io.paycallback.lease.LeaseConfig;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.scheduler.Scheduled;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.jboss.logging.Logger;

import java.time.Duration;

/**
 * Keeps every instance's view of the destinations current: at start-up a circuit row for each configured destination
 * (at the first scan, when the database was not there yet);
 * every scan interval the circuits read again, the sweep that parks or releases events as their circuits say, and the
 * probes that are due; every gauge interval the backlog gauges recounted.
 */
@ApplicationScoped
public class DestinationWatch {

    private static final Logger LOG = Logger.getLogger(DestinationWatch.class);

    private final DestinationCircuits circuits;
    private final OutboxRelay relay;
    private final Destinations destinations;
    private final DestinationBacklog backlog;
    private final DestinationMetrics metrics;
    private final Duration timeout;
    private final TrendRecorder trends;

    public DestinationWatch(DestinationCircuits circuits, OutboxRelay relay, Destinations destinations,
                            DestinationBacklog backlog, DestinationMetrics metrics, LeaseConfig config,
                            TrendRecorder trends) {
        this.trends = trends;
        this.circuits = circuits;
        this.relay = relay;
        this.destinations = destinations;
        this.backlog = backlog;
        this.metrics = metrics;
        this.timeout = config.lease();
    }

    /**
     * Not awaited: the service starts without its database (readiness reports that), and the next scan creates the
     * rows then.
     */
    void onStart(@Observes StartupEvent event) {
        circuits.initialize().subscribe().with(done -> { }, failure -> LOG.infof(
                "Destination circuits not read at start, the next scan reads them: %s", failure.toString()));
    }

    @Scheduled(every = "${paycallback.retry.scan-interval}", delayed = "${paycallback.retry.scan-delay}",
            concurrentExecution = Scheduled.ConcurrentExecution.SKIP, skipExecutionIf = Scheduled.ApplicationNotRunning.class)
    void scheduledTick() {
        try {
            tick();
        } catch (RuntimeException e) {
            LOG.warnf("Destination circuits could not be checked, the next scan does: %s", e.toString());
        }
    }

    /** Reads every circuit, parks or releases events as their circuits say, and sends the probes that are due. Blocks. */
    public void tick() {
        (circuits.initialized() ? circuits.refresh() : circuits.initialize()).await().atMost(timeout);
        circuits.sweep().await().atMost(timeout);
        for (Destinations.Destination destination : destinations.all()) {
            DestinationState state = circuits.state(destination.name());
            if (state == DestinationState.OPEN || state == DestinationState.HALF_OPEN) {
                relay.probe(destination.name(), false).await().atMost(timeout);
            }
        }
    }

    @Scheduled(every = "${paycallback.monitoring.gauge-interval}", delayed = "${paycallback.retry.scan-delay}",
            concurrentExecution = Scheduled.ConcurrentExecution.SKIP, skipExecutionIf = Scheduled.ApplicationNotRunning.class)
    void scheduledRecount() {
        try {
            recount();
        } catch (RuntimeException e) {
            LOG.warnf("Destination backlogs could not be counted, the next interval does: %s", e.toString());
        }
    }

    /** Counts each destination's backlog into its gauges. Blocks. */
    public void recount() {
        for (Destinations.Destination destination : destinations.all()) {
            DestinationBacklog.Backlog counted = backlog.of(destination.name()).await().atMost(timeout);
            metrics.backlog(destination.name(), counted.pending(), counted.oldestSeconds());
            trends.sample(TrendSeries.BACKLOG, destination.name(), counted.pending());
        }
    }
}
