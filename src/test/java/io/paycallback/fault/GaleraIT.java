package io.paycallback.fault;

import io.paycallback.db.MySqlErrors;
import io.paycallback.testsupport.FreePorts;
import io.paycallback.testsupport.ProviderKeys;
import io.paycallback.testsupport.ProviderSigner;
import io.vertx.core.Vertx;
import io.vertx.mysqlclient.MySQLConnectOptions;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.PoolOptions;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Tuple;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import java.math.BigDecimal;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The service on a three-node MariaDB Galera cluster ({@code deploy/galera/cluster.sh}): instance a talks to node 1
 * directly, instance b through HAProxy (node 2, then node 3), so both nodes take writes for the same orders at once,
 * and the downstream fails every fifth delivery. Each scenario breaks the cluster in one way an operator fears and ends
 * with the fault tier's guarantee, read from the cluster and the sink: every acknowledged callback stored once, every
 * such order PAID once with one order.paid key, refunds exact, nothing pending. Figures (failed answers, the seconds
 * the instances were not ready, races lost and run again) go to {@code target/galera/figures.txt}.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class GaleraIT {

    private static final int ORDERS = 60;
    private static final long REFUND_FEN = 30;
    private static final Path DIR = Path.of("target", "galera").toAbsolutePath();
    private static final String TOKEN = "galera-order-service-" + UUID.randomUUID();
    private static final Pattern LOST_RACES = Pattern.compile("paycallback_lost_races_total\\{at=\"(\\w+)\"[^}]*} ([0-9.E]+)");
    /** Quarkus's datasource health check attaches one to its warning while the instance's node is unreachable. */
    private static final List<String> ALLOWED_TRACES = List.of(
            "[io.quarkus.reactive.datasource.runtime.ReactiveDatasourceHealthCheck]");

    private static GaleraCluster cluster;
    private static ScenarioRows rows;
    private static FailingSink sink;
    private static ProviderKeys keys;
    private static ProviderSigner signer;
    private static ServiceInstance a;
    private static ServiceInstance b;
    private static final List<String> figures = new ArrayList<>();

    @BeforeAll
    static void start() throws Exception {
        cluster = new GaleraCluster(DIR, "galera-db-" + UUID.randomUUID());
        rows = new ScenarioRows(cluster::connect);
        // A cluster left running by an earlier, interrupted run is found by the pid files under DIR: stop it first.
        cluster.close();
        MariaDbServer.deleteRecursively(DIR);
        Instant started = Instant.now();
        cluster.up();
        figures.add("cluster up (3 nodes, SST joins, HAProxy) in " + Duration.between(started, Instant.now()).toSeconds() + " s");
        sink = new FailingSink(FreePorts.next());
        keys = ProviderKeys.generate();
        signer = new ProviderSigner(keys);
        a = instance("a", GaleraCluster.port(1));
        b = instance("b", GaleraCluster.PROXY_PORT);
        Tier.startInTurn(Duration.ofSeconds(120), a, b);
    }

    @AfterAll
    static void stop() throws Exception {
        if (a != null && b != null) {
            figures.add("races lost and run again: a " + lostRaces(a) + ", b " + lostRaces(b));
        }
        Tier.closeAll(a, b, sink, cluster);
        if (sink != null) {
            figures.add(sink.figure());
        }
        Tier.writeFigures(DIR.resolve("figures.txt"), figures);
    }

    private static ServiceInstance instance(String name, int port) {
        Map<String, String> config = ServiceInstance.tierConfig(keys, "127.0.0.1:" + port + "/" + GaleraCluster.DATABASE,
                cluster.password(), sink, TOKEN);
        config.put("paycallback.database.galera-check", "on");
        return new ServiceInstance(name, DIR.resolve(name), FreePorts.next(), FreePorts.next(), config);
    }

    /**
     * The race the service must expect on a multi-primary cluster, on the real cluster through the service's own
     * client: the same key inserted in a transaction on two nodes at once. The node that certifies second rolls its
     * transaction back at COMMIT with 1213, not 1062, and {@link MySqlErrors} calls that a lost race to run again.
     */
    @Test
    @Order(1)
    void aCrossNodeRaceInsideATransactionLosesAtCommitWith1213WhichIsALostRace() throws Exception {
        try (Connection connection = cluster.connect(1); Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE galera_race (k INT PRIMARY KEY)");
        }
        Vertx vertx = Vertx.vertx();
        Pool one = Pool.pool(vertx, options(1), new PoolOptions().setMaxSize(1));
        Pool two = Pool.pool(vertx, options(2), new PoolOptions().setMaxSize(1));
        int races = 20;
        int lost = 0;
        List<String> other = new ArrayList<>();
        try {
            SqlConnection first = await(one.getConnection());
            SqlConnection second = await(two.getConnection());
            for (int k = 0; k < races; k++) {
                await(first.query("BEGIN").execute());
                await(second.query("BEGIN").execute());
                await(first.preparedQuery("INSERT INTO galera_race (k) VALUES (?)").execute(Tuple.of(k)));
                await(second.preparedQuery("INSERT INTO galera_race (k) VALUES (?)").execute(Tuple.of(k)));
                await(first.query("COMMIT").execute());
                try {
                    await(second.query("COMMIT").execute());
                    other.add("race " + k + ": both committed");
                } catch (Exception e) {
                    Throwable cause = e.getCause() == null ? e : e.getCause();
                    if (MySqlErrors.isLostRace(cause)) {
                        lost++;
                    } else {
                        other.add("race " + k + ": " + cause);
                    }
                    await(second.query("ROLLBACK").execute());
                }
            }
        } finally {
            await(one.close());
            await(two.close());
            await(vertx.close());
        }
        figures.add("cross-node race in a transaction: " + lost + " of " + races + " lost at COMMIT with a lost race (1213)"
                + (other.isEmpty() ? "" : ", otherwise " + other));
        assertThat(other).as("every race ends in a lost race at COMMIT").isEmpty();
        assertThat(lost).isEqualTo(races);
    }

    private static MySQLConnectOptions options(int node) {
        return new MySQLConnectOptions().setHost("127.0.0.1").setPort(GaleraCluster.port(node))
                .setDatabase(GaleraCluster.DATABASE).setUser("paycallback").setPassword(cluster.password());
    }

    private static <T> T await(io.vertx.core.Future<T> future) throws Exception {
        return future.toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
    }

    @Test
    @Order(2)
    void aSteadyIngestThroughTwoNodesStoresEveryCallbackOnceAndRefundsExactly() throws Exception {
        Load load = new Load();
        List<Load.Payment> payments = Load.payments(signer, "G1", ORDERS);
        load.register(a, TOKEN, payments);
        Map<String, Long> racesBefore = lostRaces(a, b);
        try (ReadinessWatch watch = new ReadinessWatch(List.of(a, b))) {
            load.send(payments, Duration.ofMillis(30), copy -> copy == 0 ? a : b);
            converge("G1", load, payments, "steady ingest, each callback to both nodes at once", watch);
        }
        assertThat(load.acknowledged()).as("every callback acknowledged without a fault").hasSize(payments.size());

        Load refundLoad = new Load();
        List<Load.Refund> refunds = Load.refunds(signer, payments, REFUND_FEN);
        refundLoad.send(refunds, Duration.ofMillis(30), copy -> copy == 1 ? b : a);
        rows.awaitNothingPending("G1");
        Map<String, BigDecimal> refunded = rows.decimals("SELECT out_trade_no, SUM(amount) FROM refunds WHERE status = 'SUCCEEDED'"
                + " AND out_trade_no LIKE ? GROUP BY out_trade_no", "G1");
        Map<String, Integer> refundRows = rows.counts("SELECT out_trade_no, COUNT(*) FROM refunds WHERE out_trade_no LIKE ?"
                + " GROUP BY out_trade_no", "G1");
        figures.add("G1 refunds to both nodes at once: sent=" + refunds.size() + ", acknowledged="
                + refundLoad.acknowledged().size() + ", answers=" + refundLoad.answers() + ", refunded orders=" + refunded.size()
                + ", races lost and run again in G1: " + difference(lostRaces(a, b), racesBefore));
        refundLoad.close();
        assertThat(refundLoad.answers()).containsOnlyKeys(200);
        assertThat(refunded.keySet()).isEqualTo(refunds.stream().map(Load.Refund::outTradeNo).collect(Collectors.toSet()));
        assertThat(refunded.values()).allMatch(total -> total.compareTo(new BigDecimal("0.30")) == 0);
        assertThat(refundRows.values()).as("one refund row per refund").allMatch(n -> n == 1);
        assertThat(rows.count("SELECT COUNT(*) FROM refund_callback_log WHERE status <> 1 AND out_trade_no LIKE ?", "G1", 1)).isZero();
    }

    @Test
    @Order(3)
    void theNodeBehindHaproxyKilledMidIngestAndDrainLosesNothingAndRejoinsByIst() throws Exception {
        Load load = new Load();
        List<Load.Payment> payments = Load.payments(signer, "G2", ORDERS);
        load.register(a, TOKEN, payments);
        sink.delay(300);
        int logBefore = cluster.errorLog(2).length();
        try (ReadinessWatch watch = new ReadinessWatch(List.of(a, b))) {
            CompletableFuture<Void> sending = Tier.background(() -> load.send(payments, Duration.ofMillis(40), copy -> copy == 1 ? b : a));
            Thread.sleep(1_500);
            cluster.kill(2);
            int leased = leasedRows("G2");
            Thread.sleep(2_000);
            Duration rejoin = cluster.rejoin(2);
            sending.get();
            sink.delay(0);
            String rejoinLog = cluster.errorLog(2).substring(logBefore);
            assertRejoinedByIst(rejoinLog, 2);
            converge("G2", load, payments, "kill -9 of the node behind HAProxy mid-ingest and mid-drain", watch,
                    "rows under lease at the kill=" + leased + ", rejoin by IST=" + rejoin.toMillis() + " ms");
        }
    }

    @Test
    @Order(4)
    void theNodeOfInstanceAKilledMakesItNotReadyUntilTheNodeIsBack() throws Exception {
        Load load = new Load();
        List<Load.Payment> payments = Load.payments(signer, "G3", ORDERS);
        load.register(b, TOKEN, payments);
        int logBefore = cluster.errorLog(1).length();
        try (ReadinessWatch watch = new ReadinessWatch(List.of(a, b))) {
            CompletableFuture<Void> sending = Tier.background(() -> load.send(payments, Duration.ofMillis(40), copy -> copy == 1 ? b : a));
            Thread.sleep(1_500);
            cluster.kill(1);
            Instant killed = Instant.now();
            while (a.ready() && Duration.between(killed, Instant.now()).toSeconds() < 15) {
                Thread.sleep(100);
            }
            Duration notReadyAfter = Duration.between(killed, Instant.now());
            assertThat(a.ready()).as("a, its node dead").isFalse();
            assertThat(b.ready()).as("b, through HAProxy").isTrue();
            Duration rejoin = cluster.rejoin(1);
            assertRejoinedByIst(cluster.errorLog(1).substring(logBefore), 1);
            a.awaitReady(Duration.ofSeconds(30));
            Duration backUp = Duration.between(killed, Instant.now());
            sending.get();
            converge("G3", load, payments, "kill -9 of instance a's own node", watch, "a not ready after="
                    + notReadyAfter.toMillis() + " ms, node 1 rejoined by IST in " + rejoin.toMillis()
                    + " ms, a ready again after=" + backUp.toMillis() + " ms");
        }
    }

    /** A node that leaves Synced without dying (a donor, or desynced by a backup tool) takes its instance out of service. */
    @Test
    @Order(5)
    void aDesyncedNodeTakesItsInstanceOutOfServiceUntilItIsSyncedAgain() throws Exception {
        cluster.desync(1, true);
        Instant desynced = Instant.now();
        try {
            while (a.ready() && Duration.between(desynced, Instant.now()).toSeconds() < 10) {
                Thread.sleep(100);
            }
            assertThat(a.ready()).as("a, on a desynced node").isFalse();
            assertThat(b.ready()).isTrue();
        } finally {
            cluster.desync(1, false);
        }
        a.awaitReady(Duration.ofSeconds(15));
        figures.add("wsrep_desync=ON on node 1: a not ready after " + Duration.between(desynced, Instant.now()).toMillis()
                + " ms round trip, ready again once Synced");
    }

    @Test
    @Order(6)
    void aHungNodeForTenSecondsLosesNothing() throws Exception {
        Load load = new Load();
        List<Load.Payment> payments = Load.payments(signer, "G4", ORDERS);
        load.register(a, TOKEN, payments);
        try (ReadinessWatch watch = new ReadinessWatch(List.of(a, b))) {
            CompletableFuture<Void> sending = Tier.background(() -> load.send(payments, Duration.ofMillis(60), copy -> copy == 1 ? b : a));
            Thread.sleep(1_000);
            cluster.pause(2);
            Thread.sleep(10_000);
            cluster.resume(2);
            Duration synced = cluster.awaitSynced(2);
            sending.get();
            converge("G4", load, payments, "kill -STOP of the node behind HAProxy for 10 s", watch,
                    "node 2 Synced again " + synced.toMillis() + " ms after SIGCONT");
        }
    }

    @Test
    @Order(7)
    void theWholeClusterKilledAndRecoveredFromItsMostAdvancedNodeLosesNothingAcknowledged() throws Exception {
        Load load = new Load();
        List<Load.Payment> payments = Load.payments(signer, "G5", ORDERS);
        load.register(a, TOKEN, payments);
        try (ReadinessWatch watch = new ReadinessWatch(List.of(a, b))) {
            CompletableFuture<Void> sending = Tier.background(() -> load.send(payments, Duration.ofMillis(40), copy -> copy == 1 ? b : a));
            Thread.sleep(1_500);
            for (int node = 1; node <= 3; node++) {
                cluster.kill(node);
            }
            Thread.sleep(1_000);
            Duration recovery = cluster.recover();
            a.awaitReady(Duration.ofSeconds(30));
            b.awaitReady(Duration.ofSeconds(30));
            sending.get();
            converge("G5", load, payments, "the whole cluster killed -9, bootstrapped from its most advanced node", watch,
                    "recovery (wsrep-recover x3, bootstrap, two IST joins at once)=" + recovery.toMillis() + " ms");
        }
    }

    /**
     * MariaDB's rsync script handles a rejoin too: it reports "rsync IST completed on joiner" when the donor sent only the
     * missing write sets, "rsync SST completed on joiner" when it copied the whole data directory.
     */
    private static void assertRejoinedByIst(String rejoinLog, int node) {
        assertThat(rejoinLog).as("node " + node + " rejoined by IST")
                .contains("rsync IST completed on joiner").contains("Receiving IST")
                .doesNotContain("rsync SST completed on joiner");
    }

    /**
     * Read once both instances have seen every fault: no uncaught exception, no stack trace but the allowed ones, no
     * secret, and no race lost to another node (1213, 3101) that ended in a "fail" answer or a counted try.
     */
    @Test
    @Order(8)
    void theLogsHoldNoUncaughtExceptionNoStackTraceAndNoLostRaceCountedAsAFailure() throws Exception {
        for (ServiceInstance instance : List.of(a, b)) {
            String log = instance.log();
            assertThat(log.lines().filter(line -> line.contains("Could not reserve") || line.contains(" failed (try "))
                    .filter(line -> line.contains("errorCode=1213") || line.contains("errorCode=3101")).toList())
                    .as(instance.name() + ": lost races answered fail or counted as a try").isEmpty();
            assertThat(log).as(instance.name()).doesNotContain("Uncaught exception").doesNotContain("Result is already complete")
                    .doesNotContain(cluster.password(), TOKEN);
            assertThat(ServiceLogs.unexpectedStackTraces(log, ALLOWED_TRACES)).as(instance.name() + ": stack traces under these lines").isEmpty();
        }
    }

    private static String lostRaces(ServiceInstance instance) {
        return lostRaces(List.of(instance)).toString();
    }

    private static Map<String, Long> lostRaces(ServiceInstance... instances) {
        return lostRaces(List.of(instances));
    }

    /** paycallback_lost_races_total by where the race was lost, summed over the instances. */
    private static Map<String, Long> lostRaces(List<ServiceInstance> instances) {
        Map<String, Long> races = new LinkedHashMap<>();
        for (ServiceInstance instance : instances) {
            Matcher matcher = LOST_RACES.matcher(instance.metrics());
            while (matcher.find()) {
                races.merge(matcher.group(1), (long) Double.parseDouble(matcher.group(2)), Long::sum);
            }
        }
        return races;
    }

    private static Map<String, Long> difference(Map<String, Long> after, Map<String, Long> before) {
        Map<String, Long> difference = new LinkedHashMap<>();
        after.forEach((at, count) -> difference.put(at, count - before.getOrDefault(at, 0L)));
        return difference;
    }

    private static int leasedRows(String scenario) {
        try {
            return rows.leased(scenario);
        } catch (SQLException e) {
            return -1;
        }
    }

    private static void converge(String scenario, Load load, List<Load.Payment> payments, String title, ReadinessWatch watch)
            throws Exception {
        converge(scenario, load, payments, title, watch, "");
    }

    /** {@link ScenarioRows#converge}, its figures recorded with the seconds each instance was not ready. */
    private static void converge(String scenario, Load load, List<Load.Payment> payments, String title, ReadinessWatch watch,
                                 String extra) throws Exception {
        Map<String, Object> figure = rows.converge(scenario, load, payments, sink);
        figure.put("not ready s", watch.notReadySeconds());
        figures.add(scenario + " " + title + ": " + figure + (extra.isEmpty() ? "" : ", " + extra));
    }
}
