package io.paycallback.trend;

import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The last hours as charts, read in one statement over the minutes' primary key and merged across instances: a count
 * is summed, a sample takes the largest. Every instance draws the same picture.
 */
@ApplicationScoped
public class Trends {

    static final String READ = """
            SELECT minute, series, label, SUM(value) AS total, MAX(value) AS top FROM trend_minutes
            WHERE minute >= ? AND minute < ? GROUP BY minute, series, label""";

    /** Upper bounds of a delivery's time, in ms, that {@link TrendSeries#DELIVERY_LATENCY} counts by; the last, more. */
    public static final long[] LATENCY_BOUNDS = {50, 100, 250, 500, 1_000, 2_500, 5_000, 10_000, 30_000, 60_000,
            300_000, 1_800_000, 3_600_000};

    /** The windows an operator chooses from, in hours, and the minutes each point of a line covers. */
    public enum Window {
        HOUR(1, 1), SIX_HOURS(6, 5), DAY(24, 15);

        private final int hours;
        private final int step;

        Window(int hours, int step) {
            this.hours = hours;
            this.step = step;
        }

        public int hours() {
            return hours;
        }

        public int stepMinutes() {
            return step;
        }

        public static Optional<Window> ofHours(int hours) {
            for (Window window : values()) {
                if (window.hours == hours) {
                    return Optional.of(window);
                }
            }
            return Optional.empty();
        }
    }

    /** One line: a value per point, oldest first. */
    public record Line(String label, List<Long> values) {
    }

    /**
     * @param perMinute whether a point is a rate (its minutes' counts divided by their number) rather than a level
     */
    public record Chart(String title, String unit, boolean perMinute, List<Line> lines) {
    }

    /** Every chart over the same points: {@code from} is the start of the first, each {@code stepMinutes} long. */
    public record Picture(Window window, Instant from, Instant to, int stepMinutes, List<Chart> charts) {
    }

    private static final long MISSING = -1;
    /** The label of a payment callback's try that made its order PAID: the payment table's label and the result. */
    static final String PAID = "payment paid";

    private final Pool pool;
    private final Clock clock;

    public Trends(Pool pool, Clock clock) {
        this.pool = pool;
        this.clock = clock;
    }

    public Uni<Picture> read(Window window) {
        long now = clock.millis() / 60_000;
        int step = window.stepMinutes();
        int points = window.hours() * 60 / step;
        long to = (now / step + 1) * step;
        long from = to - (long) points * step;
        return pool.preparedQuery(READ).execute(Tuple.of(from, to)).map(rows -> {
            Map<TrendSeries, Map<String, long[]>> bySeries = new EnumMap<>(TrendSeries.class);
            for (Row row : rows) {
                Optional<TrendSeries> series = TrendSeries.ofStored(row.getString("series"));
                if (series.isEmpty()) {
                    continue;
                }
                int point = (int) ((row.getLong("minute") - from) / step);
                TrendSeries.Merge merge = series.get().merge();
                long[] line = bySeries.computeIfAbsent(series.get(), key -> new TreeMap<>())
                        .computeIfAbsent(row.getString("label"), key -> empty(points, merge));
                if (merge == TrendSeries.Merge.SUM) {
                    line[point] += row.getLong("total");
                } else {
                    line[point] = Math.max(line[point], row.getLong("top"));
                }
            }
            List<Chart> charts = List.of(
                    rate("Callbacks per minute, by provider and answer", bySeries.get(TrendSeries.CALLBACKS), step),
                    rate("Payments that made their order PAID, per minute", only(bySeries.get(TrendSeries.PROCESSED),
                            PAID), step),
                    rate("Delivery tries per minute, by destination and result", bySeries.get(TrendSeries.DELIVERIES), step),
                    latency(bySeries.get(TrendSeries.DELIVERY_LATENCY), points),
                    level("Events waiting per destination", bySeries.get(TrendSeries.BACKLOG)),
                    level("Dead letters per table", bySeries.get(TrendSeries.DEAD_LETTERS)));
            return new Picture(window, Instant.ofEpochSecond(from * 60), Instant.ofEpochSecond(to * 60), step, charts);
        });
    }

    /** A count missing from a minute is none; a sample missing is unknown, {@link #MISSING}. */
    private static long[] empty(int points, TrendSeries.Merge merge) {
        long[] line = new long[points];
        if (merge == TrendSeries.Merge.MAX) {
            Arrays.fill(line, MISSING);
        }
        return line;
    }

    private static Map<String, long[]> only(Map<String, long[]> lines, String label) {
        return lines == null || !lines.containsKey(label) ? null : Map.of(label, lines.get(label));
    }

    private static Chart rate(String title, Map<String, long[]> lines, int step) {
        List<Line> drawn = new ArrayList<>();
        if (lines != null) {
            lines.forEach((label, values) -> {
                List<Long> perMinute = new ArrayList<>(values.length);
                for (long value : values) {
                    perMinute.add(Math.round((double) value / step));
                }
                drawn.add(new Line(label, perMinute));
            });
        }
        return new Chart(title, "per minute", true, drawn);
    }

    /** A sample missing from a point (no instance wrote it) keeps the level of the point before. */
    private static Chart level(String title, Map<String, long[]> lines) {
        List<Line> drawn = new ArrayList<>();
        if (lines != null) {
            lines.forEach((label, values) -> {
                List<Long> levels = new ArrayList<>(values.length);
                long last = 0;
                for (long value : values) {
                    last = value == MISSING ? last : value;
                    levels.add(last);
                }
                drawn.add(new Line(label, levels));
            });
        }
        return new Chart(title, "rows", false, drawn);
    }

    /**
     * The p50 and p99 of the time each destination's events took from their writing (in the callback's transaction) to
     * their delivery, as the upper bound of the bucket they fall in.
     */
    private static Chart latency(Map<String, long[]> buckets, int points) {
        Map<String, long[][]> byDestination = new TreeMap<>();
        if (buckets != null) {
            buckets.forEach((label, values) -> {
                int space = label.lastIndexOf(' ');
                if (space < 0) {
                    return;
                }
                int bucket = bucketOf(label.substring(space + 1));
                if (bucket < 0) {
                    return;
                }
                long[][] histogram = byDestination.computeIfAbsent(label.substring(0, space),
                        key -> new long[points][LATENCY_BOUNDS.length]);
                for (int point = 0; point < points; point++) {
                    histogram[point][bucket] += values[point];
                }
            });
        }
        List<Line> drawn = new ArrayList<>();
        byDestination.forEach((destination, histogram) -> {
            drawn.add(new Line(destination + " p50", quantiles(histogram, 0.50)));
            drawn.add(new Line(destination + " p99", quantiles(histogram, 0.99)));
        });
        return new Chart("Time from callback to delivered, p50 and p99 per destination", "ms", false, drawn);
    }

    static int bucketOf(String bound) {
        for (int i = 0; i < LATENCY_BOUNDS.length; i++) {
            if (Long.toString(LATENCY_BOUNDS[i]).equals(bound)) {
                return i;
            }
        }
        return -1;
    }

    /** The bucket label a try of {@code millis} is counted under: the smallest bound it does not exceed. */
    public static String bucketLabel(long millis) {
        for (long bound : LATENCY_BOUNDS) {
            if (millis <= bound) {
                return Long.toString(bound);
            }
        }
        return Long.toString(LATENCY_BOUNDS[LATENCY_BOUNDS.length - 1]);
    }

    static List<Long> quantiles(long[][] histogram, double quantile) {
        List<Long> values = new ArrayList<>(histogram.length);
        for (long[] point : histogram) {
            long total = 0;
            for (long count : point) {
                total += count;
            }
            long seen = 0;
            long value = 0;
            for (int i = 0; i < point.length && total > 0; i++) {
                seen += point[i];
                if (seen >= Math.ceil(quantile * total)) {
                    value = LATENCY_BOUNDS[i];
                    break;
                }
            }
            values.add(value);
        }
        return values;
    }
}
