package io.paycallback.fault;

import io.paycallback.delivery.WebhookVerifier;
import io.paycallback.testsupport.FreePorts;
import io.paycallback.testsupport.KafkaBroker;
import io.paycallback.testsupport.KafkaTopic;
import io.paycallback.testsupport.ProviderKeys;
import io.paycallback.testsupport.ProviderSigner;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A Kafka destination through the faults it lives with, on the fault tier's two processes of the packaged service
 * sharing one MariaDB: {@code bus}, a signed topic of three partitions on the test JVM's broker ({@link KafkaBroker}),
 * beside the tier's HTTP sink, which answers 503 to every fifth event. The broker is killed with SIGKILL under load and
 * restarted 20 s later; an instance is killed with SIGKILL under load. Each scenario ends with every paid order's
 * {@code order.paid} on the topic at least once, every repeat of it with the same webhook-id (what a consumer drops
 * repeats by), every record's signature verified as a consumer does, no outbox row pending or dead, and the sink's
 * guarantee of the fault tier ({@link ScenarioRows#converge}). Short timings by configuration stand for the real ones:
 * a 2 s timeout per record, a probe every 2 s, a circuit that opens after 5 failed tries. Figures in
 * {@code target/fault-kafka/kafka-figures.txt}: the repeats, how long the topic took to heal, the circuit seen.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class KafkaFaultIT {

    private static final Path DIR = Path.of("target", "fault-kafka").toAbsolutePath();
    private static final String TOKEN = "kafka-fault-order-service-" + UUID.randomUUID();
    private static final String DB_PASSWORD = "kafka-fault-db-" + UUID.randomUUID();
    private static final String TOPIC = "pay-events-" + UUID.randomUUID();
    private static final int PARTITIONS = 3;
    private static final String SECRET = secret();
    private static final Duration BROKER_DOWN = Duration.ofSeconds(20);
    private static final Duration READ = Duration.ofSeconds(30);
    /** Ten probe intervals: the first after the broker is back closes the circuit, and the waiting events follow. */
    private static final Duration HEALED_WITHIN = Duration.ofSeconds(20);
    /** The bus destination's timeout per record. */
    private static final Duration TIMEOUT = Duration.ofSeconds(2);
    /** Every event's key in the scenario's order: the merchant every tier order belongs to. */
    private static final String MERCHANT = "default:";
    private static final List<String> ALLOWED_TRACES = List.of();

    private static MariaDbServer database;
    private static ScenarioRows rows;
    private static FailingSink sink;
    private static ProviderKeys keys;
    private static ProviderSigner signer;
    private static KafkaBroker broker;
    private static ServiceInstance a;
    private static ServiceInstance b;
    private static final List<String> figures = new ArrayList<>();
    private int logStartA;
    private int logStartB;

    @BeforeAll
    static void start() throws Exception {
        broker = KafkaBroker.shared();
        KafkaTopic.create(broker.bootstrapServers(), TOPIC, PARTITIONS);
        database = Tier.freshDatabase(DIR);
        rows = new ScenarioRows(database::connect);
        sink = new FailingSink(FreePorts.next());
        keys = ProviderKeys.generate();
        signer = new ProviderSigner(keys);
        a = instance("a");
        b = instance("b");
        Tier.startInTurn(Duration.ofSeconds(90), a, b);
    }

    @AfterAll
    static void stop() throws Exception {
        Tier.closeAll(a, b, sink, database);
        if (sink != null) {
            figures.add(sink.figure());
        }
        Tier.writeFigures(DIR.resolve("kafka-figures.txt"), figures);
    }

    /** Both instances up and ready, whatever the scenario before left; their logs are read from here on. */
    @BeforeEach
    void bothReady() throws Exception {
        for (ServiceInstance instance : List.of(a, b)) {
            if (!instance.alive()) {
                instance.start();
            }
            instance.awaitReady(Duration.ofSeconds(90));
        }
        logStartA = a.log().length();
        logStartB = b.log().length();
    }

    @AfterEach
    void theLogsHoldNoUncaughtExceptionNoStackTraceAndNoSecret() throws Exception {
        for (ServiceInstance instance : List.of(a, b)) {
            String full = instance.log();
            String log = full.substring(Math.min(full.length(), instance == a ? logStartA : logStartB));
            ServiceLogs.assertClean(instance.name(), log, ALLOWED_TRACES, List.of(DB_PASSWORD, TOKEN,
                    SECRET.substring("whsec_".length()), keys.apiV3Key(), keys.stripeSecret()));
        }
    }

    private static String secret() {
        byte[] key = new byte[32];
        new Random(61).nextBytes(key);
        return "whsec_" + Base64.getEncoder().encodeToString(key);
    }

    private static ServiceInstance instance(String name) {
        Map<String, String> config = ServiceInstance.tierConfig(keys, "127.0.0.1:" + database.port() + "/"
                + MariaDbServer.DATABASE, DB_PASSWORD, sink, TOKEN);
        String bus = "paycallback.downstream.destinations.bus.";
        config.put(bus + "kafka.bootstrap-servers", broker.bootstrapServers());
        config.put(bus + "kafka.topic", TOPIC);
        config.put(bus + "events", "order.paid");
        config.put(bus + "signing-secret", SECRET);
        config.put(bus + "timeout", TIMEOUT.toSeconds() + "s");
        // Five failed tries in a row open a circuit: the dead broker's within seconds, never the sink's (one in five).
        config.put("paycallback.downstream.breaker.min-tries", "5");
        config.put("paycallback.downstream.breaker.probe-interval", "2s");
        config.put("paycallback.downstream.breaker.disable-after", "1h");
        return new ServiceInstance(name, DIR.resolve(name), FreePorts.next(), FreePorts.next(), config);
    }

    @Test
    @Order(1)
    void aBrokerKilledUnderLoadGetsEveryEventOnceItIsBackWhileTheWebhookGoesOn() throws Exception {
        String scenario = "K";
        int orders = 500;
        Load load = new Load();
        List<Load.Payment> payments = Load.payments(signer, scenario, orders);
        load.register(a, TOKEN, payments);

        CompletableFuture<Void> sending = Tier.background(() -> load.send(payments, Duration.ofMillis(80),
                copy -> copy == 1 ? b : a));
        awaitAcknowledged(load, orders / 5);
        int ackedAtKill = load.acknowledged().size();
        int sinkAtKill = sink.delivered().size();
        broker.kill9();
        Instant killed = Instant.now();
        Set<Integer> busStates = new TreeSet<>();
        Set<Integer> sinkStates = new TreeSet<>();
        while (Duration.between(killed, Instant.now()).compareTo(BROKER_DOWN) < 0) {
            busStates.add(circuit("bus"));
            sinkStates.add(circuit("sink"));
            Thread.sleep(250);
        }
        int ackedDuring = load.acknowledged().size() - ackedAtKill;
        int sinkDuring = sink.delivered().size() - sinkAtKill;
        int waiting = count("SELECT COUNT(*) FROM outbox WHERE destination = 'bus' AND status = 0 AND out_trade_no LIKE ?",
                scenario);
        // The broker listens some seconds before the restart returns (start.sh waits for a metadata answer): the service
        // may have healed by then, so "back" is the moment its port accepts connections again.
        Instant restarting = Instant.now();
        CompletableFuture<Back> listening = CompletableFuture.supplyAsync(() -> {
            while (!accepts(broker.bootstrapServers())) {
                if (Duration.between(restarting, Instant.now()).toSeconds() > 120) {
                    throw new IllegalStateException("the broker's port is still closed 120 s after its restart began");
                }
                pause(20);
            }
            return new Back(Instant.now(), now());
        });
        broker.restart();
        Back back = listening.get();
        Duration down = Duration.between(killed, back.at());
        sending.get();

        Map<String, Object> sinkFigures = rows.converge(scenario, load, payments, sink);
        long healed = millis("SELECT TIMESTAMPDIFF(MICROSECOND, ?, MAX(updated_at)) DIV 1000 FROM outbox"
                + " WHERE destination = 'bus' AND status = 1 AND created_at <= ? AND out_trade_no LIKE ?",
                back.database(), back.database(), "F" + scenario + "-%");
        long closed = millis("SELECT TIMESTAMPDIFF(MICROSECOND, ?, since) DIV 1000 FROM destination_circuits"
                + " WHERE destination = 'bus' AND state = 0", back.database());
        int failedTries = count("SELECT COUNT(*) FROM delivery_attempts a JOIN outbox x ON x.id = a.outbox_id"
                + " WHERE a.destination = 'bus' AND a.result <> 'delivered' AND x.out_trade_no LIKE ?", scenario);
        int slowestTry = count("SELECT COALESCE(MAX(a.latency_ms), 0) FROM delivery_attempts a JOIN outbox x"
                + " ON x.id = a.outbox_id WHERE a.destination = 'bus' AND x.out_trade_no LIKE ?", scenario);
        Topic topic = topic(scenario);
        figures.add(scenario + " broker SIGKILL under load (" + BROKER_DOWN.toSeconds() + " s dead, then its restart): "
                + sinkFigures + ", " + topic + "; bus circuit states seen while dead " + busStates
                + " (0 closed, 1 open, 2 half-open), " + failedTries + " failed bus tries (probes included), the slowest "
                + slowestTry + " ms; " + waiting + " bus events waiting at the restart; broker listening again after "
                + down.toMillis() + " ms, bus circuit closed " + closed + " ms and every event from before then on the"
                + " topic " + healed + " ms after that; sink circuit states seen " + sinkStates + ", sink delivered "
                + sinkDuring + " order.paid events while the broker was dead, for " + ackedDuring
                + " callbacks acknowledged meanwhile");

        topic.assertEveryPaidOrderOnceByWebhookId(paid(scenario));
        assertThat(count("SELECT COUNT(*) FROM outbox WHERE status <> 1 AND out_trade_no LIKE ?", scenario))
                .as("outbox rows pending or dead").isZero();
        assertThat(busStates).as("the bus circuit while its broker was dead (1 open, 2 half-open)").containsAnyOf(1, 2);
        assertThat(healed).as("ms from the broker listening again to the last event of the outage on the topic")
                .isLessThan(HEALED_WITHIN.toMillis());
        assertThat(slowestTry).as("the longest a bus try took, with a timeout of %d ms: one waits at most that long"
                + " behind another's wait for the brokers", TIMEOUT.toMillis()).isLessThan(3 * (int) TIMEOUT.toMillis());
        assertThat(sinkStates).as("the sink's circuit while the broker was dead").containsOnly(0);
        assertThat(ackedDuring).as("callbacks acknowledged while the broker was dead").isPositive();
        assertThat(sinkDuring).as("the sink's deliveries while the broker was dead, for %d callbacks", ackedDuring)
                .isGreaterThanOrEqualTo(ackedDuring / 2);
        assertThat(a.log() + b.log()).contains("Destination bus: circuit open").contains("Destination bus: circuit closed");
    }

    @Test
    @Order(2)
    void anInstanceKilledUnderLoadHasItsEventsOnTheTopicWithTheirWebhookIds() throws Exception {
        String scenario = "M";
        int orders = 300;
        Load load = new Load();
        List<Load.Payment> payments = Load.payments(signer, scenario, orders);
        load.register(a, TOKEN, payments);

        // Once a is dead every copy goes to b, as a load balancer's health check would have it.
        CompletableFuture<Void> sending = Tier.background(() -> load.send(payments, Duration.ofMillis(30),
                copy -> copy == 1 || !a.alive() ? b : a));
        awaitAcknowledged(load, orders / 3);
        a.kill();
        int leasedAtKill = rows.leased(scenario);
        int busLeasedAtKill = count("SELECT COUNT(*) FROM outbox WHERE destination = 'bus' AND status = 0"
                + " AND lease_token IS NOT NULL AND out_trade_no LIKE ?", scenario);
        sending.get();

        Map<String, Object> sinkFigures = rows.converge(scenario, load, payments, sink);
        Topic topic = topic(scenario);
        figures.add(scenario + " instance SIGKILL under load: " + sinkFigures + ", " + topic + ", leased at the kill "
                + leasedAtKill + " (bus " + busLeasedAtKill + ")");

        topic.assertEveryPaidOrderOnceByWebhookId(paid(scenario));
        assertThat(count("SELECT COUNT(*) FROM outbox WHERE status <> 1 AND out_trade_no LIKE ?", scenario))
                .as("outbox rows pending or dead").isZero();
    }

    /** The scenario's records on the topic, grouped by key, each verified with the destination's secret now. */
    private static Topic topic(String scenario) throws Exception {
        List<KafkaTopic.Received> records = KafkaTopic.readAll(broker.bootstrapServers(), TOPIC, READ).stream()
                .filter(record -> record.key() != null && record.key().startsWith(MERCHANT + "F" + scenario + "-")).toList();
        WebhookVerifier verifier = new WebhookVerifier(SECRET);
        long nowSeconds = Instant.now().getEpochSecond();
        Map<String, List<KafkaTopic.Received>> byOrder = new HashMap<>();
        List<KafkaTopic.Received> unverified = new ArrayList<>();
        for (KafkaTopic.Received record : records) {
            byOrder.computeIfAbsent(record.key().substring(MERCHANT.length()), order -> new ArrayList<>()).add(record);
            if (!verifier.verify(record.headers().get("webhook-id"), record.headers().get("webhook-timestamp"),
                    record.headers().get("webhook-signature"), record.value().getBytes(StandardCharsets.UTF_8), nowSeconds)) {
                unverified.add(record);
            }
        }
        return new Topic(records, byOrder, unverified);
    }

    /** What a consumer of the topic saw of one scenario. */
    private record Topic(List<KafkaTopic.Received> records, Map<String, List<KafkaTopic.Received>> byOrder,
                         List<KafkaTopic.Received> unverified) {

        int repeats() {
            return records.size() - byOrder.size();
        }

        void assertEveryPaidOrderOnceByWebhookId(Set<String> paid) {
            assertThat(paid).as("orders paid").isNotEmpty();
            assertThat(byOrder.keySet()).as("orders with a record on the topic: every paid one").isEqualTo(paid);
            assertThat(records).as("records that are not order.paid")
                    .allMatch(record -> "order.paid".equals(record.headers().get("webhook-event-type")));
            Map<String, Set<String>> ids = byOrder.entrySet().stream().collect(Collectors.toMap(Map.Entry::getKey,
                    entry -> entry.getValue().stream().map(record -> record.headers().get("webhook-id"))
                            .collect(Collectors.toSet())));
            assertThat(ids.entrySet()).as("orders whose records carry more than one webhook-id")
                    .filteredOn(entry -> entry.getValue().size() != 1).isEmpty();
            assertThat(byOrder.values()).as("an order's repeats on one partition")
                    .allMatch(mine -> mine.stream().map(KafkaTopic.Received::partition).distinct().count() == 1);
            assertThat(unverified).as("records whose signature did not verify").isEmpty();
        }

        @Override
        public String toString() {
            return "topic: " + records.size() + " records for " + byOrder.size() + " orders, " + repeats()
                    + " repeats (each with its first's webhook-id), " + unverified.size() + " unverified, by partition "
                    + records.stream().collect(Collectors.groupingBy(KafkaTopic.Received::partition, Collectors.counting()));
        }
    }

    private static void awaitAcknowledged(Load load, int count) throws InterruptedException {
        Instant deadline = Instant.now().plusSeconds(60);
        while (load.acknowledged().size() < count) {
            if (Instant.now().isAfter(deadline)) {
                throw new AssertionError("not within 60 s: " + count + " callbacks acknowledged");
            }
            Thread.sleep(20);
        }
    }

    private static Set<String> paid(String scenario) throws SQLException {
        return rows.strings("SELECT out_trade_no FROM orders WHERE status = 'PAID' AND out_trade_no LIKE ?", scenario);
    }

    private static int count(String sql, String scenario) throws SQLException {
        return rows.count(sql, scenario, 1);
    }

    /** The circuit's state as the console shows it: 2 while a probe is under way; 0 before it has a row. */
    private static int circuit(String destination) throws SQLException {
        try (Connection connection = database.connect(); PreparedStatement statement = connection.prepareStatement(
                "SELECT state, probe_until > NOW(3) FROM destination_circuits WHERE destination = ?")) {
            statement.setString(1, destination);
            try (ResultSet result = statement.executeQuery()) {
                if (!result.next()) {
                    return 0;
                }
                return result.getInt(1) == 1 && result.getBoolean(2) ? 2 : result.getInt(1);
            }
        }
    }

    private static boolean accepts(String hostPort) {
        try (Socket socket = new Socket()) {
            String[] parts = hostPort.split(":");
            socket.connect(new InetSocketAddress(parts[0], Integer.parseInt(parts[1])), 200);
            return true;
        } catch (IOException refused) {
            return false;
        }
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The database's clock, as it stamps the outbox. */
    private static String now() {
        try (Connection connection = database.connect(); PreparedStatement statement = connection.prepareStatement(
                "SELECT DATE_FORMAT(NOW(3), '%Y-%m-%d %H:%i:%s.%f')"); ResultSet result = statement.executeQuery()) {
            result.next();
            return result.getString(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The broker listening again: by the test's clock and as the database's clock read then. */
    private record Back(Instant at, String database) {
    }

    /** A duration in ms the query computes. */
    private static long millis(String sql, String... parameters) throws SQLException {
        try (Connection connection = database.connect(); PreparedStatement statement = connection.prepareStatement(sql)) {
            for (int i = 0; i < parameters.length; i++) {
                statement.setString(i + 1, parameters[i]);
            }
            try (ResultSet result = statement.executeQuery()) {
                result.next();
                return result.getLong(1);
            }
        }
    }
}
