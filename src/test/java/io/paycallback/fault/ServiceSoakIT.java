package io.paycallback.fault;

import io.paycallback.testsupport.FreePorts;
import io.paycallback.testsupport.ProviderKeys;
import io.paycallback.testsupport.ProviderSigner;
import io.paycallback.testsupport.TcpProxy;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Predicate;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The soak: two instances of the packaged service under steady stripe and wxpay traffic at half of what this machine
 * takes (measured at the start, or {@code -Dsoak.rate} orders per second), for {@code -Dsoak.minutes} (10 by default),
 * with a fault every few minutes in rotation: the database proxy cut for 10 s, {@code kill -9} of an instance and its
 * restart, MariaDB restarted, the sink answering 500 for a minute, a burst of duplicates. At the end every acknowledged
 * callback is stored once and its order PAID once with one order.paid key at the sink, nothing is pending and nothing
 * dead; over the run every measure {@link SoakSampler} takes is flat, and the callbacks' p99 outside the faults stays
 * within twice that of the first five minutes after the warm-up. Samples go to {@code target/soak/samples.csv}, figures
 * to {@code target/soak/figures.txt}.
 */
class ServiceSoakIT {

    private static final Path DIR = Path.of("target", "soak").toAbsolutePath();
    private static final String TOKEN = "soak-order-service-" + UUID.randomUUID();
    private static final String DB_PASSWORD = "soak-db-" + UUID.randomUUID();
    private static final Duration LENGTH = Duration.ofMinutes(Integer.getInteger("soak.minutes", 10));
    private static final Duration WARM_UP = Duration.ofSeconds(Integer.getInteger("soak.warm-up-seconds", 90));
    /** The first fault comes this long after the warm-up, so that every measure has its level before any fault. */
    private static final Duration QUIET_START = Duration.ofSeconds(30);
    /** Left without a fault at the end, so that the end levels are those of a service at rest from its faults. */
    private static final Duration QUIET_END = Duration.ofSeconds(60);
    private static final Duration BASELINE = Duration.ofMinutes(5);
    /** Most faults' {@link Fault#settle}: after the recovery, until the traffic held back is caught up on, and this long. */
    private static final Duration SETTLE = Duration.ofSeconds(10);
    private static final Duration FAULT_BOUND = Duration.ofSeconds(90);
    private static final Duration GIVE_UP = Duration.ofMinutes(3);
    /**
     * An hour writes about a gigabyte of rows and indexes; a deployment's database keeps its working set in memory, and
     * with the fault tier's 64 MB every insert into a unique index came to wait on the disk as the tables grew.
     */
    private static final String BUFFER_POOL = "1G";
    /** The production defaults, set here because the prepared statements' ceiling is computed from them. */
    private static final int POOL_SIZE = 32;
    private static final int STATEMENTS_PER_CONNECTION = 48;
    private static final List<String> ALLOWED_TRACES = List.of(
            "[io.quarkus.reactive.datasource.runtime.ReactiveDatasourceHealthCheck]",
            "[io.netty.bootstrap.ServerBootstrap] (vert.x-acceptor-thread-0) Failed to register an accepted channel");

    /** The faults, in the order they come round. */
    enum Fault {
        PROXY_CUT("the database proxy cut for 10 s", Duration.ofSeconds(40), SETTLE),
        INSTANCE_KILLED("kill -9 of instance b, restarted", Duration.ofSeconds(40), SETTLE),
        SINK_500("the sink answering 500 for a minute", Duration.ofSeconds(90), SETTLE),
        // A restarted server starts with an empty buffer pool, and every pooled connection with an empty statement
        // cache: its first minute is slower than any other, which is the fault's doing, not the service's.
        MARIADB_RESTARTED("MariaDB restarted", Duration.ofSeconds(75), Duration.ofSeconds(45)),
        DUPLICATES("a burst of duplicates", Duration.ofSeconds(40), SETTLE);

        final String title;
        /** About how long it lasts with its recovery: a fault starts only if it ends before the quiet end. */
        final Duration expected;
        /** How long its window lasts after the traffic it held back is caught up on. */
        final Duration settle;

        Fault(String title, Duration expected, Duration settle) {
            this.title = title;
            this.expected = expected;
            this.settle = settle;
        }
    }

    record Window(Fault fault, long fromMillis, long toMillis, String detail) {
        boolean covers(long millis) {
            return millis >= fromMillis && millis < toMillis;
        }
    }

    /** An instance as the sampler watches it: which start of it is running, and since when. */
    private static final class Watched implements SoakSampler.Watched {
        private final ServiceInstance instance;
        private final String databaseUser;
        private volatile int incarnation = 1;
        private volatile long startedSecond;

        Watched(ServiceInstance instance, String databaseUser) {
            this.instance = instance;
            this.databaseUser = databaseUser;
        }

        @Override
        public ServiceInstance instance() {
            return instance;
        }

        @Override
        public String databaseUser() {
            return databaseUser;
        }

        @Override
        public int incarnation() {
            return incarnation;
        }

        @Override
        public long startedSecond() {
            return startedSecond;
        }
    }

    private static MariaDbServer database;
    private static ScenarioRows rows;
    private static TcpProxy proxy;
    private static FailingSink sink;
    private static ProviderKeys keys;
    private static ProviderSigner signer;
    private static ServiceInstance a;
    private static ServiceInstance b;
    private static final List<String> figures = new ArrayList<>();
    private static volatile String faultUnderWay = "";

    @BeforeAll
    static void start() throws Exception {
        database = Tier.freshDatabase(DIR, BUFFER_POOL);
        rows = new ScenarioRows(database::connect);
        proxy = new TcpProxy(FreePorts.next(), "127.0.0.1", database.port());
        sink = new FailingSink(FreePorts.next());
        keys = ProviderKeys.generate();
        signer = new ProviderSigner(keys);
        a = instance("a");
        b = instance("b");
        Tier.startInTurn(FAULT_BOUND, a, b);
    }

    @AfterAll
    static void stop() throws Exception {
        Tier.closeAll(a, b, proxy, sink, database);
        Tier.writeFigures(DIR.resolve("figures.txt"), figures);
    }

    /**
     * The fault tier's configuration, with two changes: each instance logs in as a database user of its own, so that
     * its connections can be counted, and a delivery's schedule outlasts the sink's minute of 500s (a try every few
     * seconds at first, about 2.5 minutes in all), as the real schedule of a day outlasts a destination's outage.
     */
    private static ServiceInstance instance(String name) {
        Map<String, String> config = ServiceInstance.tierConfig(keys, "127.0.0.1:" + proxy.port() + "/" + MariaDbServer.DATABASE,
                DB_PASSWORD, sink, TOKEN);
        config.put("quarkus.datasource.username", databaseUser(name));
        config.put("quarkus.datasource.reactive.max-size", Integer.toString(POOL_SIZE));
        config.put("paycallback.database.prepared-statements-per-connection", Integer.toString(STATEMENTS_PER_CONNECTION));
        config.put("paycallback.downstream.retry.backoff", "1s,2s,3s,5s,10s,15s,20s,30s,30s,30s");
        config.put("paycallback.downstream.breaker.probe-interval", "5s");
        return new ServiceInstance(name, DIR.resolve(name), FreePorts.next(), FreePorts.next(), config);
    }

    private static String databaseUser(String instance) {
        return "soak_" + instance;
    }

    @Test
    void hoursOfTrafficWithFaultsLoseNothingAndLeakNothing() throws Exception {
        Watched watchedA = new Watched(a, databaseUser("a"));
        Watched watchedB = new Watched(b, databaseUser("b"));
        // Closed by hand once the traffic has stopped; closed here too when a fault or check fails before that.
        try (SoakTraffic traffic = new SoakTraffic(signer, TOKEN, List.of(a, b))) {
            double rate;
            String rateSource;
            if (Integer.getInteger("soak.rate") != null) {
                rate = Integer.getInteger("soak.rate");
                rateSource = "set by -Dsoak.rate";
            } else {
                double capacity = traffic.capacity(16, Duration.ofSeconds(10), Duration.ofSeconds(20));
                rate = Math.max(1, capacity / 2);
                rateSource = String.format(Locale.ROOT, "half of %.0f orders/s measured with 16 back-to-back senders", capacity);
            }
            figures.add(String.format(Locale.ROOT, "soak of %d min: %.0f orders/s (%s), warm-up %d s", LENGTH.toMinutes(), rate,
                    rateSource, WARM_UP.toSeconds()));

            long origin = System.currentTimeMillis();
            traffic.start(rate);
            // Each connection's statement cache fills up to its size as the rarer statements come (a batch of each size
            // is a statement of its own), which takes longer than any warm-up: the ceiling, not the start, bounds it.
            SoakSampler sampler = new SoakSampler(List.of(watchedA, watchedB), database::connect, traffic, () -> faultUnderWay,
                    2.0 * POOL_SIZE * STATEMENTS_PER_CONNECTION, origin);
            List<Window> windows = new ArrayList<>();
            Duration every = faultInterval();
            Fault[] rotation = Fault.values();
            long nextFault = origin + WARM_UP.plus(QUIET_START).toMillis();
            long end = origin + LENGTH.toMillis();
            for (int i = 0; ; i++) {
                sleepUntil(nextFault);
                Fault fault = rotation[i % rotation.length];
                if (System.currentTimeMillis() + fault.expected.plus(QUIET_END).toMillis() > end) {
                    break;
                }
                windows.add(inflict(fault, traffic, watchedB, origin));
                // On the schedule, not after the last fault's end: a fault that ran long makes the next one come at once.
                nextFault += every.toMillis();
            }
            sleepUntil(end);
            traffic.stop(GIVE_UP);
            sampler.close();
            sampler.write(DIR.resolve("samples.csv"));

            figures.add("faults every " + every.toSeconds() + " s:");
            windows.forEach(w -> figures.add(String.format(Locale.ROOT, "  %4d-%4d s %s: %s", (w.fromMillis() - origin) / 1000,
                    (w.toMillis() - origin) / 1000, w.fault().title, w.detail())));
            figures.add("traffic: " + traffic.figures());
            figures.add("sink: " + sink.requests() + " deliveries, " + sink.refused() + " of them refused (every fifth, and the outage)");

            List<SoakSampler.Flatness> flatness = sampler.flatness(WARM_UP);
            figures.add("measure              instance     start       end   ratio     limit       max   ceiling");
            flatness.forEach(f -> figures.add(String.format(Locale.ROOT, "%-20s %-8s %9.1f %9.1f %7.3f %9.1f %9.1f %9.0f%s",
                    f.measure().column, f.instance(), f.start(), f.end(), f.ratio(), f.measure().limit(f.start()), f.max(),
                    f.ceiling(), f.flat() ? "" : "  GROWN")));
            figures.add(String.format(Locale.ROOT, "database: %.0f MB of rows and indexes, buffer pool %s", storedMegabytes(),
                    BUFFER_POOL));
            Latency latency = latency(traffic, windows, origin, end);
            figures.addAll(latency.lines());

            nothingLostNothingTwice(traffic);
            assertThat(sampler.failure()).as("a sample that could not be taken").isEmpty();
            assertThat(flatness).as("every measure of both instances sampled").hasSize(2 * SoakSampler.Measure.values().length);
            assertThat(flatness).as("measures grown past their limit").allMatch(SoakSampler.Flatness::flat);
            assertThat(latency.ratio()).as("p99 of the callbacks outside faults after the first five minutes, to theirs")
                    .isLessThanOrEqualTo(2.0);
            for (ServiceInstance instance : List.of(a, b)) {
                String log = instance.log();
                assertThat(log).as(instance.name()).doesNotContain("Uncaught exception").doesNotContain("Result is already complete");
                assertThat(ServiceLogs.unexpectedStackTraces(log, ALLOWED_TRACES))
                        .as(instance.name() + ": stack traces under these lines").isEmpty();
                assertThat(log).as(instance.name()).doesNotContain(DB_PASSWORD, TOKEN, keys.apiV3Key(), keys.stripeSecret());
            }
        }
    }

    /** Every few minutes, so that each fault comes round at least once in ten minutes and often in an hour. */
    private static Duration faultInterval() {
        String set = System.getProperty("soak.fault-every-seconds");
        if (set != null) {
            return Duration.ofSeconds(Long.parseLong(set));
        }
        long room = LENGTH.minus(WARM_UP).minus(QUIET_START).minus(QUIET_END).toSeconds() / Fault.values().length;
        return Duration.ofSeconds(Math.max(90, Math.min(180, room)));
    }

    private static Window inflict(Fault fault, SoakTraffic traffic, Watched watchedB, long origin) throws Exception {
        faultUnderWay = fault.name();
        long from = System.currentTimeMillis();
        String detail;
        try (ReadinessWatch readiness = new ReadinessWatch(List.of(a, b))) {
            detail = switch (fault) {
                case PROXY_CUT -> {
                    proxy.cut();
                    Thread.sleep(10_000);
                    proxy.restore();
                    yield "both ready " + bothReady() + " ms after the restore";
                }
                case INSTANCE_KILLED -> {
                    traffic.unroutable(b, true);
                    b.kill();
                    watchedB.incarnation++;
                    watchedB.startedSecond = (System.currentTimeMillis() - origin) / 1000;
                    Instant started = Instant.now();
                    b.start();
                    b.awaitReady(FAULT_BOUND);
                    traffic.unroutable(b, false);
                    yield "b ready again " + Duration.between(started, Instant.now()).toMillis() + " ms after its start";
                }
                case SINK_500 -> {
                    sink.outage(500);
                    Thread.sleep(60_000);
                    sink.outage(0);
                    yield "the events of the outage delivered " + outageDelivered() + " ms after it";
                }
                case MARIADB_RESTARTED -> {
                    Instant stopping = Instant.now();
                    database.close();
                    database.start();
                    long restart = Duration.between(stopping, Instant.now()).toMillis();
                    yield "restart " + restart + " ms, both ready " + bothReady() + " ms after it";
                }
                case DUPLICATES -> {
                    Map<Integer, Integer> answers = traffic.duplicates(500, 4);
                    assertThat(answers).as("answers to a burst of duplicates").containsOnlyKeys(200);
                    yield "answers " + answers;
                }
            };
            long caughtUp = System.currentTimeMillis();
            while (traffic.backlog() > 0 && System.currentTimeMillis() - caughtUp < GIVE_UP.toMillis()) {
                Thread.sleep(100);
            }
            detail += ", traffic caught up after " + (System.currentTimeMillis() - caughtUp) + " ms, not ready (s) "
                    + readiness.notReadySeconds();
            Thread.sleep(fault.settle.toMillis());
        } finally {
            faultUnderWay = "";
        }
        return new Window(fault, from, System.currentTimeMillis(), detail);
    }

    /** Milliseconds until both instances answer ready. */
    private static long bothReady() throws InterruptedException {
        Instant since = Instant.now();
        a.awaitReady(FAULT_BOUND);
        b.awaitReady(FAULT_BOUND);
        return Duration.between(since, Instant.now()).toMillis();
    }

    /**
     * Milliseconds until every event of the soak written before now is delivered: those the outage held back, not the
     * ones the steady traffic keeps adding (and the sink keeps failing one in five of).
     */
    private static long outageDelivered() throws Exception {
        Instant since = Instant.now();
        Instant deadline = since.plus(GIVE_UP);
        String databaseNow;
        try (Connection connection = database.connect(); Statement statement = connection.createStatement();
             ResultSet now = statement.executeQuery("SELECT NOW(3)")) {
            now.next();
            databaseNow = now.getString(1);
        }
        while (rows.count("SELECT COUNT(*) FROM outbox WHERE status = 0 AND created_at < '" + databaseNow
                + "' AND out_trade_no LIKE ?", SoakTraffic.SCENARIO, 1) > 0 && Instant.now().isBefore(deadline)) {
            Thread.sleep(250);
        }
        return Duration.between(since, Instant.now()).toMillis();
    }

    private static void sleepUntil(long millis) throws InterruptedException {
        long wait = millis - System.currentTimeMillis();
        if (wait > 0) {
            Thread.sleep(wait);
        }
    }

    /**
     * Every acknowledged payment stored once and its order PAID, with one delivered order.paid row and one Idempotency-Key
     * at the sink; every acknowledged refund made once; every closed order CLOSED; nothing pending, in no leased table a
     * row past its lease and no dead letter.
     */
    private static void nothingLostNothingTwice(SoakTraffic traffic) throws Exception {
        String scenario = SoakTraffic.SCENARIO;
        Instant deadline = Instant.now().plus(GIVE_UP);
        while (rows.pending(scenario) > 0 && Instant.now().isBefore(deadline)) {
            Thread.sleep(250);
        }
        Map<String, String> acknowledged = traffic.paidTrades();
        Map<String, Integer> stored = rows.counts("SELECT channel_trade_no, COUNT(*) FROM pay_callback_log WHERE out_trade_no LIKE ?"
                + " GROUP BY channel_trade_no", scenario);
        Set<String> paid = rows.strings("SELECT out_trade_no FROM orders WHERE status = 'PAID' AND out_trade_no LIKE ?", scenario);
        Set<String> storedOrders = rows.strings("SELECT out_trade_no FROM pay_callback_log WHERE out_trade_no LIKE ?", scenario);
        Map<String, Integer> paidEvents = rows.counts("SELECT out_trade_no, COUNT(*) FROM outbox WHERE type = 'order.paid'"
                + " AND destination = 'sink' AND status = 1 AND out_trade_no LIKE ? GROUP BY out_trade_no", scenario);
        Map<String, Set<String>> sinkKeys = new HashMap<>();
        sink.delivered().forEach((key, order) -> {
            if (order.startsWith("F" + scenario + "-")) {
                sinkKeys.computeIfAbsent(order, o -> new HashSet<>()).add(key);
            }
        });
        Map<String, BigDecimal> refundedAmounts = rows.decimals("SELECT out_trade_no, SUM(amount) FROM refunds WHERE status = 'SUCCEEDED'"
                + " AND out_trade_no LIKE ? GROUP BY out_trade_no", scenario);
        Map<String, Integer> refundRows = rows.counts("SELECT out_trade_no, COUNT(*) FROM refunds WHERE out_trade_no LIKE ?"
                + " GROUP BY out_trade_no", scenario);
        Set<String> closedOrders = rows.strings("SELECT out_trade_no FROM orders WHERE status = 'CLOSED'"
                + " AND out_trade_no LIKE ?", scenario);
        Map<String, Integer> dead = new HashMap<>();
        Map<String, Integer> pastLease = new HashMap<>();
        for (String table : List.of("pay_callback_log", "refund_callback_log", "refund_pending_log", "outbox", "order_queries",
                "refund_submissions", "close_requests", "statement_runs")) {
            dead.put(table, rows.count("SELECT COUNT(*) FROM " + table + " WHERE status = 2", scenario, 0));
            pastLease.put(table, rows.count("SELECT COUNT(*) FROM " + table + " WHERE status = 0 AND lease_token IS NOT NULL"
                    + " AND lease_token <> 'parked' AND next_retry_at < NOW(3) - INTERVAL 10 SECOND", scenario, 0));
        }
        figures.add("end: acknowledged payments=" + acknowledged.size() + ", stored=" + stored.size() + ", paid=" + paid.size()
                + ", order.paid keys at the sink=" + sinkKeys.values().stream().mapToInt(Set::size).sum() + ", refunded orders="
                + refundedAmounts.size() + ", closed=" + closedOrders.size() + ", pending=" + rows.pending(scenario)
                + ", dead=" + dead + ", past their lease=" + pastLease);

        assertThat(missing(acknowledged.keySet(), stored.keySet())).as("acknowledged but not stored").isEmpty();
        assertThat(stored.values()).as("stored more than once").allMatch(n -> n == 1);
        assertThat(missing(storedOrders, paid)).as("orders with a stored callback not PAID").isEmpty();
        assertThat(missing(acknowledged.values(), paid)).as("orders with an acknowledged callback not PAID").isEmpty();
        assertThat(paidEvents.keySet()).as("one delivered order.paid row per paid order").isEqualTo(paid);
        assertThat(paidEvents.values()).allMatch(n -> n == 1);
        assertThat(sinkKeys.keySet()).as("the sink got every paid order's event").isEqualTo(paid);
        assertThat(sinkKeys.values()).as("exactly one distinct order.paid key per order").allMatch(k -> k.size() == 1);
        assertThat(missing(traffic.refunded(), refundedAmounts.keySet())).as("acknowledged refunds not made").isEmpty();
        assertThat(refundedAmounts.values()).as("each refund made once")
                .allMatch(total -> total.compareTo(BigDecimal.valueOf(SoakTraffic.REFUND_FEN, 2)) == 0);
        assertThat(refundRows.values()).as("one refund row per refund").allMatch(n -> n == 1);
        assertThat(closedOrders).as("orders closed through the order API").isEqualTo(traffic.closed());
        assertThat(rows.pending(scenario)).as("pending at the end").isZero();
        assertThat(dead.values()).as("dead letters, which none of the faults explains").allMatch(n -> n == 0);
        assertThat(pastLease.values()).as("rows left past their lease").allMatch(n -> n == 0);
    }

    /** What of {@code expected} is not in {@code actual}, by hash: AssertJ's containsAll compares each with each. */
    private static Set<String> missing(Collection<String> expected, Set<String> actual) {
        Set<String> missing = new HashSet<>(expected);
        missing.removeAll(actual);
        return missing;
    }

    /** What the run left in the service's database, as InnoDB counts it. */
    private static double storedMegabytes() throws SQLException {
        try (Connection connection = database.connect();
             Statement statement = connection.createStatement();
             ResultSet sum = statement.executeQuery("SELECT SUM(data_length + index_length) FROM information_schema.tables"
                     + " WHERE table_schema = '" + MariaDbServer.DATABASE + "'")) {
            sum.next();
            return sum.getDouble(1) / (1024 * 1024);
        }
    }

    /** The figures of {@link #latency}, and the ratio the check holds to 2. */
    record Latency(List<String> lines, double ratio) {
    }

    /**
     * The p99 of the callbacks sent outside the fault windows in the first {@link #BASELINE} after the warm-up (the
     * baseline), and of all those sent after it, whose ratio to the baseline is the check; and for the record the p99 of
     * each minute after it, a minute over twice the baseline marked OVER. One minute's p99 is a few hundred callbacks'
     * slowest few on two shared cores, and moves by itself; the run's after the baseline is the service's.
     */
    private static Latency latency(SoakTraffic traffic, List<Window> windows, long origin, long end) {
        Predicate<SoakTraffic.Sent> outsideFaults = s -> windows.stream().noneMatch(w -> w.covers(s.atMillis()));
        long baselineFrom = origin + WARM_UP.toMillis();
        long baselineTo = baselineFrom + BASELINE.toMillis();
        double baseline = traffic.p99(baselineFrom, baselineTo, outsideFaults);
        double after = traffic.p99(baselineTo, end, outsideFaults);
        List<String> lines = new ArrayList<>();
        lines.add(String.format(Locale.ROOT, "callbacks' p99 outside faults, %d-%d s: %.1f ms of %d callbacks",
                (baselineFrom - origin) / 1000, (baselineTo - origin) / 1000, baseline,
                traffic.count(baselineFrom, baselineTo, outsideFaults)));
        lines.add(String.format(Locale.ROOT, "callbacks' p99 outside faults, %d-%d s: %.1f ms of %d callbacks, %.2f x",
                (baselineTo - origin) / 1000, (end - origin) / 1000, after, traffic.count(baselineTo, end, outsideFaults),
                after / baseline));
        for (long from = baselineTo; from < end; from += 60_000) {
            long to = Math.min(end, from + 60_000);
            long count = traffic.count(from, to, outsideFaults);
            if (count < 100) {
                continue;
            }
            double p99 = traffic.p99(from, to, outsideFaults);
            lines.add(String.format(Locale.ROOT, "  %4d-%4d s: %.1f ms of %d callbacks, %.2f x%s", (from - origin) / 1000,
                    (to - origin) / 1000, p99, count, p99 / baseline, p99 > 2 * baseline ? " OVER" : ""));
        }
        return new Latency(lines, after / baseline);
    }
}
