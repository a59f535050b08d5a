package io.paycallback.trend;

import io.quarkus.scheduler.Scheduled;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.ToLongFunction;

/**
 * What this instance counted and sampled, minute by minute, kept in memory until the minute is over and then written
 * to {@code trend_minutes} in a few multi-row INSERTs: the hot paths only add to a counter. A count that comes in for a
 * minute already written (it read the clock just before the minute ended) is written with the next write, as a row of
 * its own. A minute that could not be written is dropped (the charts show a dip; nothing a payment depends on is
 * here). Rows older than a day are deleted by the same job.
 */
@ApplicationScoped
public class TrendRecorder {

    private static final Logger LOG = Logger.getLogger(TrendRecorder.class);

    static final String INSERT = "INSERT INTO trend_minutes (minute, series, label, instance, seq, value) VALUES ";
    static final String ROW = "(?, ?, ?, ?, ?, ?)";
    static final String DELETE_OLD = "DELETE FROM trend_minutes WHERE minute < ? LIMIT 10000";
    /** A day and an hour: the longest chart is a day. */
    static final long KEEP_MINUTES = 25 * 60;
    static final int ROWS_PER_INSERT = 200;
    static final int LABEL_LENGTH = 96;
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private record Key(long minute, TrendSeries series, String label) {
    }

    private final Map<Key, LongAdder> counts = new ConcurrentHashMap<>();
    private final Map<Key, AtomicLong> samples = new ConcurrentHashMap<>();
    private final Pool pool;
    private final Clock clock;
    private final String instance;
    private volatile long deletedBefore;
    private final AtomicLong writes = new AtomicLong();

    public TrendRecorder(Pool pool, Clock clock) {
        this.pool = pool;
        this.clock = clock;
        byte[] nonce = new byte[3];
        new SecureRandom().nextBytes(nonce);
        // A restarted pod keeps its name: the nonce keeps its rows of the same minute apart from its predecessor's.
        String host = System.getenv().getOrDefault("HOSTNAME", "instance");
        String name = host + "-" + HexFormat.of().formatHex(nonce);
        this.instance = name.length() > 64 ? name.substring(name.length() - 64) : name;
    }

    /** Adds {@code n} to this minute's count of the series' label. */
    public void count(TrendSeries series, String label, long n) {
        counts.computeIfAbsent(new Key(minute(), series, label), key -> new LongAdder()).add(n);
    }

    /** Keeps the largest value sampled this minute for the series' label. */
    public void sample(TrendSeries series, String label, long value) {
        samples.computeIfAbsent(new Key(minute(), series, label), key -> new AtomicLong(value))
                .accumulateAndGet(value, Math::max);
    }

    @Scheduled(every = "15s", concurrentExecution = Scheduled.ConcurrentExecution.SKIP,
            skipExecutionIf = Scheduled.ApplicationNotRunning.class)
    void scheduledFlush() {
        try {
            flush().await().atMost(TIMEOUT);
        } catch (RuntimeException e) {
            LOG.warnf("Trend minutes not written, the charts miss them: %s", e.toString());
        }
    }

    /** Writes every minute that is over; @return how many rows were written */
    public Uni<Integer> flush() {
        return flushBefore(minute());
    }

    /** Writes every minute before {@code minute}; a test passes the next minute to write the current one. */
    public Uni<Integer> flushBefore(long minute) {
        List<Tuple> rows = new ArrayList<>();
        long write = writes.incrementAndGet();
        drain(counts, minute, write, rows, LongAdder::sum);
        drain(samples, minute, write, rows, AtomicLong::get);
        Uni<Integer> written = Uni.createFrom().item(0);
        for (int from = 0; from < rows.size(); from += ROWS_PER_INSERT) {
            List<Tuple> chunk = rows.subList(from, Math.min(rows.size(), from + ROWS_PER_INSERT));
            Tuple params = Tuple.tuple();
            chunk.forEach(row -> {
                for (int i = 0; i < row.size(); i++) {
                    params.addValue(row.getValue(i));
                }
            });
            String sql = INSERT + String.join(", ", Collections.nCopies(chunk.size(), ROW));
            written = written.flatMap(done -> pool.preparedQuery(sql).execute(params).map(result -> done + chunk.size()));
        }
        long oldest = minute - KEEP_MINUTES;
        if (oldest <= deletedBefore) {
            return written;
        }
        return written.call(() -> pool.preparedQuery(DELETE_OLD).execute(Tuple.of(oldest))
                .invoke(() -> deletedBefore = oldest));
    }

    /** The current minute, as a row stores it. */
    public long minute() {
        return clock.millis() / 60_000;
    }

    private <V> void drain(Map<Key, V> cells, long before, long write, List<Tuple> rows, ToLongFunction<V> value) {
        for (Key key : List.copyOf(cells.keySet())) {
            if (key.minute() < before) {
                V cell = cells.remove(key);
                String label = key.label().length() > LABEL_LENGTH ? key.label().substring(0, LABEL_LENGTH) : key.label();
                rows.add(Tuple.of(key.minute(), key.series().stored(), label, instance, write, value.applyAsLong(cell)));
            }
        }
    }
}
