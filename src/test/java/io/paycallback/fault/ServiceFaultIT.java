package io.paycallback.fault;

import io.paycallback.testsupport.FreePorts;
import io.paycallback.testsupport.ProviderKeys;
import io.paycallback.testsupport.ProviderSigner;
import io.paycallback.testsupport.TcpProxy;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Faults as an operator fears them, against two processes of the packaged service on one MariaDB of the tier's own,
 * reached through a proxy that can cut every connection, with a downstream that fails every fifth delivery. Each
 * scenario has its own orders and ends with the guarantee checked from the database and the sink: every acknowledged
 * callback stored, every such order PAID with exactly one order.paid key, nothing pending. The last test reads both
 * instances' logs for uncaught exceptions, stack traces and secrets. Each scenario's figures go to
 * {@code target/fault/figures.txt}.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ServiceFaultIT {

    private static final int ORDERS = 150;
    private static final Path DIR = Path.of("target", "fault").toAbsolutePath();
    private static final String TOKEN = "fault-order-service-" + UUID.randomUUID();
    private static final String DB_PASSWORD = "fault-db-" + UUID.randomUUID();
    private static final Pattern STACK_FRAME = Pattern.compile("\\s+at [\\w$./]+\\(");
    private static final Pattern LOG_LINE = Pattern.compile("\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d,\\d{3} ");
    /**
     * Quarkus's datasource health check attaches one to its warning while the database is unreachable (scenarios B and
     * C); Vert.x's acceptor logs one for a connection that arrives in the last moments of a shutdown, after the HTTP
     * server's event loops are gone (scenario D; eclipse-vertx/vert.x#6087, fixed in Vert.x 5 by #6366): the client
     * sees a reset connection, like any refused one.
     */
    private static final List<String> ALLOWED_TRACES = List.of(
            "[io.quarkus.reactive.datasource.runtime.ReactiveDatasourceHealthCheck]",
            "[io.netty.bootstrap.ServerBootstrap] (vert.x-acceptor-thread-0) Failed to register an accepted channel");

    private static MariaDbServer database;
    private static TcpProxy proxy;
    private static FailingSink sink;
    private static ProviderKeys keys;
    private static ProviderSigner signer;
    private static ServiceInstance a;
    private static ServiceInstance b;
    private static final List<String> figures = new ArrayList<>();

    @BeforeAll
    static void start() throws Exception {
        MariaDbServer.deleteRecursively(DIR);
        database = new MariaDbServer(DIR.resolve("db"), FreePorts.next());
        database.install();
        proxy = new TcpProxy(FreePorts.next(), "127.0.0.1", database.port());
        sink = new FailingSink(FreePorts.next());
        keys = ProviderKeys.generate();
        signer = new ProviderSigner(keys);
        a = instance("a");
        b = instance("b");
        a.start();
        a.awaitReady(Duration.ofSeconds(90));
        b.start();
        b.awaitReady(Duration.ofSeconds(90));
    }

    @AfterAll
    static void stop() throws Exception {
        for (AutoCloseable closeable : new AutoCloseable[]{a, b, proxy, sink, database}) {
            if (closeable != null) {
                closeable.close();
            }
        }
        if (sink != null) {
            figures.add("sink: " + sink.requests() + " deliveries, " + sink.refused() + " of them answered 503");
        }
        Files.createDirectories(DIR);
        Files.write(DIR.resolve("figures.txt"), figures, StandardCharsets.UTF_8);
        figures.forEach(System.out::println);
    }

    private static ServiceInstance instance(String name) {
        Map<String, String> config = new HashMap<>();
        keys.asConfig().forEach((key, value) -> {
            if (key.startsWith("paycallback.")) {
                config.put(key, value);
            }
        });
        String url = "127.0.0.1:" + proxy.port() + "/" + MariaDbServer.DATABASE;
        config.put("quarkus.datasource.jdbc.url", "jdbc:mariadb://" + url);
        config.put("quarkus.datasource.reactive.url", "mysql://" + url);
        config.put("quarkus.datasource.username", "paycallback");
        config.put("quarkus.datasource.password", DB_PASSWORD);
        // Short enough that the vertx-sql-client#1706 burst, were it back, would land inside the proxy scenario.
        config.put("quarkus.datasource.reactive.mysql.connection-timeout", "3");
        config.put("quarkus.log.console.json.enabled", "false");
        config.put("quarkus.shutdown.delay", "2s");
        config.put("quarkus.shutdown.timeout", "10s");
        config.put("paycallback.retry.lease", "5s");
        config.put("paycallback.retry.backoff", "1s,1s,2s,2s,3s,3s,5s,5s");
        config.put("paycallback.retry.scan-interval", "1s");
        config.put("paycallback.retry.scan-delay", "1s");
        config.put("paycallback.retry.shutdown-grace", "3s");
        config.put("paycallback.downstream.destinations.sink.url", sink.url());
        config.put("paycallback.downstream.destinations.sink.events", "order.paid,refund.requested,refund.succeeded,refund.failed,alert");
        config.put("paycallback.downstream.destinations.sink.timeout", "2s");
        config.put("paycallback.auth.order-service.tokens.fault", TOKEN);
        return new ServiceInstance(name, DIR.resolve(name), FreePorts.next(), FreePorts.next(), config);
    }

    @Test
    @Order(1)
    void anInstanceKilledWhileHoldingLeasesHasItsRowsDoneByTheOtherExactlyOnce() throws Exception {
        Load load = new Load();
        List<Load.Payment> payments = Load.payments(signer, "A", ORDERS);
        load.register(a, TOKEN, payments);
        sink.delay(1_000);

        CompletableFuture<Void> sending = background(() -> load.send(payments, Duration.ofMillis(20), copy -> copy == 1 ? b : a));
        awaitAcknowledged(load, ORDERS / 2);
        a.kill();
        int leasedAtKill = leasedRows("A");
        sending.get();
        sink.delay(0);

        assertThat(leasedAtKill).as("rows under lease when the instance died").isPositive();
        converge("A", load, payments, "kill -9 of an instance mid-drain", "leased at the kill=" + leasedAtKill);
        a.start();
        a.awaitReady(Duration.ofSeconds(90));
    }

    @Test
    @Order(2)
    void cuttingEveryDatabaseConnectionFailsAnswersAndHealsWithoutARestart() throws Exception {
        Load load = new Load();
        List<Load.Payment> payments = Load.payments(signer, "B", ORDERS);
        load.register(a, TOKEN, payments);

        CompletableFuture<Void> sending = background(() -> load.send(payments, Duration.ofMillis(60), copy -> copy == 1 ? b : a));
        Thread.sleep(1_500);
        proxy.cut();
        Thread.sleep(3_000);
        boolean readyDuringCut = a.ready() || b.ready();
        Thread.sleep(3_000);
        proxy.restore();
        Instant restored = Instant.now();
        while ((!a.ready() || !b.ready()) && Duration.between(restored, Instant.now()).toSeconds() < 30) {
            Thread.sleep(100);
        }
        Duration backUp = Duration.between(restored, Instant.now());
        sending.get();

        assertThat(readyDuringCut).as("readiness during the cut").isFalse();
        assertThat(backUp).as("readiness back after the cut").isLessThan(Duration.ofSeconds(10));
        assertThat(load.answers()).containsKey(500);
        converge("B", load, payments, "proxy cut for 6 s during ingest", "ready again after=" + backUp.toMillis() + " ms");
        // Past the pool's connection timeout (3 s), when vertx-sql-client#1706 would log its burst.
        Thread.sleep(4_000);
        assertThat(a.log() + b.log()).doesNotContain("Result is already complete");
    }

    @Test
    @Order(3)
    void theDatabaseKilledAndRestartedDuringIngestAndDrainLosesNothingAcknowledged() throws Exception {
        Load load = new Load();
        List<Load.Payment> payments = Load.payments(signer, "C", ORDERS);
        load.register(a, TOKEN, payments);
        sink.delay(200);

        CompletableFuture<Void> sending = background(() -> load.send(payments, Duration.ofMillis(50), copy -> copy == 1 ? b : a));
        Thread.sleep(2_000);
        database.kill();
        Thread.sleep(3_000);
        Instant restarting = Instant.now();
        database.start();
        Duration restart = Duration.between(restarting, Instant.now());
        a.awaitReady(Duration.ofSeconds(30));
        b.awaitReady(Duration.ofSeconds(30));
        Duration backUp = Duration.between(restarting, Instant.now());
        sending.get();
        sink.delay(0);

        converge("C", load, payments, "kill -9 of MariaDB and restart during ingest and drain",
                "database restart=" + restart.toMillis() + " ms, both ready after=" + backUp.toMillis() + " ms");
    }

    @Test
    @Order(4)
    void aSigtermDuringLoadAnswersWhatIsInFlightAndLosesNothing() throws Exception {
        Load load = new Load();
        List<Load.Payment> payments = Load.payments(signer, "D", ORDERS);
        load.register(a, TOKEN, payments);

        CompletableFuture<Void> sending = background(() -> load.send(payments, Duration.ofMillis(30), copy -> copy == 2 ? a : b));
        Thread.sleep(1_500);
        int logBefore = b.log().length();
        Duration shutdown = b.terminate();
        sending.get();
        String shutdownLog = b.log().substring(logBefore);

        // The server's own account: it waited for its in-flight requests within the shutdown timeout and stopped with no
        // error. The client may still see a copy it wrote to a keep-alive connection the server was closing go
        // unanswered (counted as -2), which the provider retries like any failure.
        assertThat(shutdownLog).contains("pay-callback stopped in").doesNotContain("Timed out").doesNotContain(" ERROR ");
        assertThat(shutdown).isLessThan(Duration.ofSeconds(20));
        converge("D", load, payments, "SIGTERM of an instance during load", "graceful shutdown took=" + shutdown.toMillis() + " ms");
    }

    /**
     * Read once both instances have seen every fault. The only stack traces allowed are the {@link #ALLOWED_TRACES}.
     */
    @Test
    @Order(5)
    void theLogsHoldNoUncaughtExceptionNoStackTraceAndNoSecret() throws Exception {
        for (ServiceInstance instance : List.of(a, b)) {
            String log = instance.log();
            assertThat(log).as(instance.name()).doesNotContain("Uncaught exception").doesNotContain("Result is already complete");
            assertThat(unexpectedStackTraces(log)).as(instance.name() + ": stack traces under these lines").isEmpty();
            assertThat(log).as(instance.name())
                    .doesNotContain(DB_PASSWORD, TOKEN, keys.apiV3Key(), keys.stripeSecret())
                    .doesNotContain(keys.wxPublicDer().substring(40, 100), keys.alipayPublicDer().substring(40, 100));
        }
    }

    /**
     * The log line above each unexpected stack trace. Output that bypassed the logger shows up under whichever line came
     * before it, which is never the allowed one but by chance.
     */
    private static Set<String> unexpectedStackTraces(String log) {
        Set<String> owners = new LinkedHashSet<>();
        String owner = "(no log line)";
        for (String line : log.split("\n")) {
            if (LOG_LINE.matcher(line).lookingAt()) {
                owner = line;
            } else if (STACK_FRAME.matcher(line).lookingAt()) {
                if (!allowed(owner)) {
                    owners.add(owner.length() > 300 ? owner.substring(0, 300) : owner);
                }
            }
        }
        return owners;
    }

    private static boolean allowed(String logLine) {
        return ALLOWED_TRACES.stream().anyMatch(logLine::contains);
    }

    private interface Step {
        void run() throws Exception;
    }

    private static CompletableFuture<Void> background(Step step) {
        return CompletableFuture.runAsync(() -> {
            try {
                step.run();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
    }

    private static void awaitAcknowledged(Load load, int count) throws InterruptedException {
        Instant deadline = Instant.now().plusSeconds(60);
        while (load.acknowledged().size() < count && Instant.now().isBefore(deadline)) {
            Thread.sleep(10);
        }
    }

    private static int leasedRows(String scenario) throws Exception {
        return count("SELECT (SELECT COUNT(*) FROM pay_callback_log WHERE status = 0 AND lease_token IS NOT NULL AND out_trade_no LIKE ?)"
                + " + (SELECT COUNT(*) FROM outbox WHERE status = 0 AND lease_token IS NOT NULL AND out_trade_no LIKE ?)", scenario, 2);
    }

    /**
     * Waits until nothing of the scenario is pending, then checks the guarantee and records the figures: acknowledged
     * callbacks, stored rows, PAID orders, distinct order.paid keys the sink accepted, and the answers by status.
     */
    private static void converge(String scenario, Load load, List<Load.Payment> payments, String title, String extra) throws Exception {
        Instant deadline = Instant.now().plusSeconds(90);
        while (pending(scenario) > 0 && Instant.now().isBefore(deadline)) {
            Thread.sleep(250);
        }
        Map<String, String> orderOfTrade = payments.stream().collect(Collectors.toMap(Load.Payment::tradeNo, Load.Payment::outTradeNo));
        Set<String> stored = strings("SELECT channel_trade_no FROM pay_callback_log WHERE out_trade_no LIKE ?", scenario);
        Set<String> paid = strings("SELECT out_trade_no FROM orders WHERE status = 'PAID' AND out_trade_no LIKE ?", scenario);
        Map<String, Integer> paidEvents = counts("SELECT out_trade_no, COUNT(*) FROM outbox WHERE type = 'order.paid'"
                + " AND destination = 'sink' AND status = 1 AND out_trade_no LIKE ? GROUP BY out_trade_no", scenario);
        Map<String, Set<String>> sinkKeys = new HashMap<>();
        sink.delivered().forEach((key, order) -> {
            if (order.startsWith("F" + scenario + "-")) {
                sinkKeys.computeIfAbsent(order, o -> new HashSet<>()).add(key);
            }
        });
        Set<String> ackedOrders = load.acknowledged().stream().map(orderOfTrade::get).collect(Collectors.toSet());
        Set<String> storedOrders = stored.stream().map(orderOfTrade::get).collect(Collectors.toSet());

        Map<String, Object> figure = new LinkedHashMap<>();
        figure.put("sent", load.sent().size());
        figure.put("acknowledged", load.acknowledged().size());
        figure.put("stored", stored.size());
        figure.put("paid", paid.size());
        figure.put("events", sinkKeys.values().stream().mapToInt(Set::size).sum());
        figure.put("answers", load.answers());
        figure.put("pending", pending(scenario));
        figures.add(scenario + " " + title + ": " + figure + ", " + extra);
        load.close();

        assertThat(stored).as("acknowledged but not stored").containsAll(load.acknowledged());
        assertThat(paid).as("orders with a stored callback, all PAID").containsAll(storedOrders).containsAll(ackedOrders);
        assertThat(paidEvents.keySet()).as("one delivered order.paid row per paid order").isEqualTo(paid);
        assertThat(paidEvents.values()).allMatch(n -> n == 1);
        assertThat(sinkKeys.keySet()).as("the sink got every paid order's event").isEqualTo(paid);
        assertThat(sinkKeys.values()).as("exactly one distinct order.paid key per order").allMatch(k -> k.size() == 1);
        assertThat(pending(scenario)).as("pending at the end").isZero();
        assertThat(count("SELECT COUNT(*) FROM pay_callback_log WHERE status <> 1 AND out_trade_no LIKE ?", scenario, 1)).isZero();
    }

    private static int pending(String scenario) throws Exception {
        return count("SELECT (SELECT COUNT(*) FROM pay_callback_log WHERE status = 0 AND out_trade_no LIKE ?)"
                + " + (SELECT COUNT(*) FROM outbox WHERE status = 0 AND out_trade_no LIKE ?)", scenario, 2);
    }

    private static int count(String sql, String scenario, int parameters) throws Exception {
        try (Connection connection = database.connect(); PreparedStatement statement = connection.prepareStatement(sql)) {
            for (int i = 1; i <= parameters; i++) {
                statement.setString(i, "F" + scenario + "-%");
            }
            try (ResultSet rows = statement.executeQuery()) {
                rows.next();
                return rows.getInt(1);
            }
        }
    }

    private static Set<String> strings(String sql, String scenario) throws Exception {
        Set<String> values = new HashSet<>();
        try (Connection connection = database.connect(); PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.setString(1, "F" + scenario + "-%");
            try (ResultSet rows = statement.executeQuery()) {
                while (rows.next()) {
                    values.add(rows.getString(1));
                }
            }
        }
        return values;
    }

    private static Map<String, Integer> counts(String sql, String scenario) throws Exception {
        Map<String, Integer> values = new HashMap<>();
        try (Connection connection = database.connect(); PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.setString(1, "F" + scenario + "-%");
            try (ResultSet rows = statement.executeQuery()) {
                while (rows.next()) {
                    values.put(rows.getString(1), rows.getInt(2));
                }
            }
        }
        return values;
    }
}
