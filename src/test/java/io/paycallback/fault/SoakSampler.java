package io.paycallback.fault;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Every {@link #PERIOD} after the warm-up, what each instance holds of what leaks: its resident memory, its heap after a
 * full collection, its threads, open file descriptors, database connections and Micrometer series, and the database's
 * prepared statements; with the callbacks' p99 of the period. Each sample is a row of {@code samples.csv}; a measure is
 * flat when it has not grown past {@link Measure#limit} from its level after the warm-up to its level at the end.
 */
final class SoakSampler implements AutoCloseable {

    static final Duration PERIOD = Duration.ofSeconds(10);
    /** Samples on each side whose median is a level: a minute, so one GC or one burst does not make a level. */
    private static final int LEVEL_SAMPLES = 6;
    /**
     * The fewest on each side: in ten minutes an instance killed at 210 s is past its warm-up at about 316 s, and the
     * faults after that leave it a dozen samples outside their windows, one of which a sample may miss.
     */
    private static final int FEWEST_LEVEL_SAMPLES = 4;
    private static final Path JCMD = Path.of(System.getProperty("java.home"), "bin", "jcmd");

    /**
     * What is sampled, and the absolute slack allowed beyond 10 % growth: counts of a few dozen move by a handful with
     * no leak (a thread of a pool started on demand, a connection opened for a burst), which 10 % of them cannot absorb.
     */
    enum Measure {
        RSS_MB("rss_mb", 0),
        HEAP_AFTER_GC_MB("heap_after_gc_mb", 0),
        THREADS("threads", 4),
        FDS("fds", 8),
        DB_CONNECTIONS("db_connections", 2),
        PREPARED_STATEMENTS("prepared_statements", 16),
        METERS("meters", 0);

        final String column;
        final double slack;

        Measure(String column, double slack) {
            this.column = column;
            this.slack = slack;
        }

        double limit(double start) {
            return Math.max(start * 1.10, start + slack);
        }
    }

    /** One instance at one instant; {@code fault} is the fault under way, empty when none. */
    record Sample(long second, String instance, int incarnation, String fault, Map<Measure, Double> values, long callbacks,
                  double p99) {
    }

    /**
     * A measure's level after the warm-up of the instance's last start and at the end, its highest sample, and the
     * ceiling the configuration sets it (NaN where none does).
     */
    record Flatness(String instance, Measure measure, double start, double end, double max, double ceiling) {
        double ratio() {
            return start == 0 ? (end == 0 ? 1 : Double.POSITIVE_INFINITY) : end / start;
        }

        /** Grown by no more than its limit, or, for a cache the configuration bounds, never past that bound. */
        boolean flat() {
            return end <= measure.limit(start) || max <= ceiling;
        }
    }

    /** An instance as the sampler sees it: its process, its database user, when it last started. */
    interface Watched {
        ServiceInstance instance();

        String databaseUser();

        int incarnation();

        long startedSecond();
    }

    private final List<? extends Watched> watched;
    private final ScenarioRows.Connector database;
    private final SoakTraffic traffic;
    private final Supplier<String> fault;
    private final double preparedStatementCeiling;
    private final long originMillis;
    private final List<Sample> samples = new CopyOnWriteArrayList<>();
    private final Thread thread;
    /** Ends the wait between samples, never a sample under way: an interrupted one reads nothing of the instances. */
    private final CountDownLatch stopped = new CountDownLatch(1);
    private final AtomicReference<RuntimeException> failure = new AtomicReference<>();

    /**
     * {@code preparedStatementCeiling}: how many prepared statements the instances' configuration lets them keep open
     * on the server together, their pools' connections times the statements each caches.
     */
    SoakSampler(List<? extends Watched> watched, ScenarioRows.Connector database, SoakTraffic traffic, Supplier<String> fault,
                double preparedStatementCeiling, long originMillis) {
        this.watched = List.copyOf(watched);
        this.database = database;
        this.traffic = traffic;
        this.fault = fault;
        this.preparedStatementCeiling = preparedStatementCeiling;
        this.originMillis = originMillis;
        thread = new Thread(this::run, "soak-sampler");
        thread.setDaemon(true);
        thread.start();
    }

    private void run() {
        long due = System.currentTimeMillis();
        while (stopped.getCount() > 0) {
            long now = System.currentTimeMillis();
            try {
                sample(now - PERIOD.toMillis(), now);
            } catch (RuntimeException e) {
                // One sample lost is no reason to stop sampling; the test fails on it at the end, with its cause.
                failure.compareAndSet(null, e);
            }
            due += PERIOD.toMillis();
            try {
                if (stopped.await(Math.max(0, due - System.currentTimeMillis()), TimeUnit.MILLISECONDS)) {
                    return;
                }
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private void sample(long from, long to) {
        String underWay = fault.get();
        Map<String, Integer> connections = new HashMap<>();
        Double prepared = null;
        try (Connection connection = database.connect(); Statement statement = connection.createStatement()) {
            try (ResultSet rows = statement.executeQuery("SELECT user, COUNT(*) FROM information_schema.PROCESSLIST GROUP BY user")) {
                while (rows.next()) {
                    connections.put(rows.getString(1), rows.getInt(2));
                }
            }
            try (ResultSet rows = statement.executeQuery("SHOW GLOBAL STATUS LIKE 'Prepared_stmt_count'")) {
                prepared = rows.next() ? rows.getDouble(2) : null;
            }
        } catch (SQLException down) {
            // The database is down for a fault: the row says so by its empty columns.
        }
        long callbacks = traffic.count(from, to, s -> true);
        double p99 = traffic.p99(from, to, s -> true);
        for (Watched w : watched) {
            ServiceInstance instance = w.instance();
            Map<Measure, Double> values = new EnumMap<>(Measure.class);
            if (instance.alive()) {
                long pid = instance.pid();
                Map<String, String> status = procStatus(pid);
                put(values, Measure.RSS_MB, megabytes(status.get("VmRSS")));
                put(values, Measure.THREADS, number(status.get("Threads")));
                put(values, Measure.FDS, openFiles(pid));
                collectGarbage(pid);
                String metrics = instance.metrics();
                put(values, Measure.HEAP_AFTER_GC_MB, metric(metrics, "jvm_gc_live_data_size_bytes") / (1024.0 * 1024.0));
                put(values, Measure.METERS, metrics.isEmpty() ? null : (double) metrics.lines()
                        .filter(line -> !line.isBlank() && !line.startsWith("#")).count());
            }
            if (prepared != null) {
                values.put(Measure.DB_CONNECTIONS, (double) connections.getOrDefault(w.databaseUser(), 0));
                values.put(Measure.PREPARED_STATEMENTS, prepared);
            }
            samples.add(new Sample((to - originMillis) / 1000, instance.name(), w.incarnation(), underWay, values, callbacks, p99));
        }
    }

    private static void put(Map<Measure, Double> values, Measure measure, Double value) {
        if (value != null && !value.isNaN()) {
            values.put(measure, value);
        }
    }

    private static Map<String, String> procStatus(long pid) {
        try (Stream<String> lines = Files.lines(Path.of("/proc", Long.toString(pid), "status"))) {
            return lines.filter(line -> line.contains(":"))
                    .collect(Collectors.toMap(line -> line.substring(0, line.indexOf(':')),
                            line -> line.substring(line.indexOf(':') + 1).trim(), (x, y) -> x));
        } catch (IOException gone) {
            return Map.of();
        }
    }

    /** A {@code /proc} size in kB as megabytes; null when the process ended before it was read, as a killed one does. */
    private static Double megabytes(String kilobytes) {
        return kilobytes == null ? null : Double.parseDouble(kilobytes.replace("kB", "").trim()) / 1024.0;
    }

    private static Double number(String value) {
        return value == null ? null : Double.parseDouble(value);
    }

    private static Double openFiles(long pid) {
        try (Stream<Path> fds = Files.list(Path.of("/proc", Long.toString(pid), "fd"))) {
            return (double) fds.count();
        } catch (IOException gone) {
            return null;
        }
    }

    /**
     * A full collection, so that the live data size the JVM reports is what survives one now: with the serial collector
     * the old generation is otherwise collected only when it fills, and its size between collections is mostly garbage.
     */
    private static void collectGarbage(long pid) {
        try {
            Process jcmd = new ProcessBuilder(JCMD.toString(), Long.toString(pid), "GC.run").redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (!jcmd.waitFor(30, TimeUnit.SECONDS)) {
                jcmd.destroyForcibly();
            }
            // Micrometer learns of the collection through a JMX notification, delivered on a thread of its own.
            Thread.sleep(200);
        } catch (IOException e) {
            throw new IllegalStateException("jcmd cannot run: " + JCMD, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static double metric(String scrape, String name) {
        return scrape.lines().filter(line -> line.startsWith(name + " ") || line.startsWith(name + "{"))
                .mapToDouble(line -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1))).findFirst().orElse(Double.NaN);
    }

    /** The first sample that could not be taken, if any. */
    Optional<RuntimeException> failure() {
        return Optional.ofNullable(failure.get());
    }

    /**
     * Per instance and measure: its start level, the median of the first {@link #LEVEL_SAMPLES} samples outside faults
     * once {@code warmUp} has passed since the instance's last start (half of them, down to
     * {@link #FEWEST_LEVEL_SAMPLES}, when there are fewer than twice as many), and its end level, the median of as many
     * last ones.
     */
    List<Flatness> flatness(Duration warmUp) {
        List<Flatness> result = new ArrayList<>();
        for (Watched w : watched) {
            List<Sample> clean = samples.stream().filter(s -> s.instance().equals(w.instance().name()))
                    .filter(s -> s.incarnation() == w.incarnation() && s.fault().isEmpty())
                    .filter(s -> s.second() >= w.startedSecond() + warmUp.toSeconds()).toList();
            for (Measure measure : Measure.values()) {
                List<Double> values = clean.stream().map(s -> s.values().get(measure)).filter(v -> v != null).toList();
                int side = Math.min(LEVEL_SAMPLES, values.size() / 2);
                if (side >= FEWEST_LEVEL_SAMPLES) {
                    result.add(new Flatness(w.instance().name(), measure, median(values.subList(0, side)),
                            median(values.subList(values.size() - side, values.size())),
                            values.stream().mapToDouble(Double::doubleValue).max().orElseThrow(),
                            measure == Measure.PREPARED_STATEMENTS ? preparedStatementCeiling : Double.NaN));
                }
            }
        }
        return result;
    }

    private static double median(List<Double> values) {
        List<Double> sorted = values.stream().sorted().toList();
        int middle = sorted.size() / 2;
        return sorted.size() % 2 == 1 ? sorted.get(middle) : (sorted.get(middle - 1) + sorted.get(middle)) / 2;
    }

    void write(Path csv) throws IOException {
        List<String> lines = new ArrayList<>();
        lines.add("second,instance,incarnation,fault," + Stream.of(Measure.values()).map(m -> m.column)
                .collect(Collectors.joining(",")) + ",callbacks,p99_ms");
        for (Sample s : samples) {
            lines.add(s.second() + "," + s.instance() + "," + s.incarnation() + "," + s.fault() + ","
                    + Stream.of(Measure.values()).map(m -> s.values().containsKey(m)
                            ? String.format(Locale.ROOT, "%.1f", s.values().get(m)) : "").collect(Collectors.joining(","))
                    + "," + s.callbacks() + "," + (Double.isNaN(s.p99()) ? "" : String.format(Locale.ROOT, "%.1f", s.p99())));
        }
        Files.createDirectories(csv.getParent());
        Files.write(csv, lines, StandardCharsets.UTF_8);
    }

    @Override
    public void close() throws InterruptedException {
        stopped.countDown();
        thread.join(60_000);
    }
}
