package io.paycallback.health;

import io.quarkus.scheduler.Scheduled;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * Gate rejections and store failures over the last hour, for the console's overview. The totals only ever grow, so
 * this keeps a sample of them every minute and answers the rise since the sample an hour old. These
 * are this instance's callbacks only (a console page is served by one pod); Grafana has the sum over all of them.
 */
@ApplicationScoped
public class RecentRefusals {

    static final Duration WINDOW = Duration.ofHours(1);

    private record Sample(Instant at, long rejected, long storeFailed) {
    }

    /** The rise of both counters since {@code since}: an hour ago, or this instance's start when it is younger. */
    public record Recent(long gateRejections, long storeFailures, Instant since) {
    }

    private final CallbackRefusals totals;
    private final Clock clock;
    private final Deque<Sample> samples = new ArrayDeque<>();

    public RecentRefusals(CallbackRefusals totals, Clock clock) {
        this.totals = totals;
        this.clock = clock;
        samples.add(new Sample(clock.instant(), 0, 0));
    }

    @Scheduled(every = "1m", concurrentExecution = Scheduled.ConcurrentExecution.SKIP,
            skipExecutionIf = Scheduled.ApplicationNotRunning.class)
    synchronized void sample() {
        Sample now = now();
        samples.addLast(now);
        // Drop what is older than the baseline: the newest sample that is at least an hour old.
        Instant cutOff = now.at().minus(WINDOW);
        while (samples.size() > 1 && !secondOldest().at().isAfter(cutOff)) {
            samples.removeFirst();
        }
    }

    public synchronized Recent lastHour() {
        Sample now = now();
        Sample baseline = samples.getFirst();
        for (Sample sample : samples) {
            if (!sample.at().isAfter(now.at().minus(WINDOW))) {
                baseline = sample;
            }
        }
        return new Recent(now.rejected() - baseline.rejected(), now.storeFailed() - baseline.storeFailed(),
                baseline.at());
    }

    private Sample secondOldest() {
        var iterator = samples.iterator();
        iterator.next();
        return iterator.next();
    }

    private Sample now() {
        return new Sample(clock.instant(), totals.rejectedBusy(), totals.storeFailed());
    }
}
