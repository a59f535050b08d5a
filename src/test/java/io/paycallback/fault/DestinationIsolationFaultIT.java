package io.paycallback.fault;

import io.paycallback.testsupport.FreePorts;
import io.paycallback.testsupport.ProviderKeys;
import io.paycallback.testsupport.ProviderSigner;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One destination dead for several times its whole delivery schedule while another is healthy, on two processes of
 * the packaged service sharing one MariaDB. Short timings by configuration stand for the real ones: a schedule of
 * 12 s in all instead of a day, a probe every 2 s instead of 30 s. The healthy destination's events are delivered
 * while the other is dead exactly as fast as before it died; the dead one's circuit opens, its events wait without
 * spending tries, and once it answers again every one of them is delivered exactly once, none dead. Both receivers
 * verify every delivery's signature. Figures in {@code target/fault/isolation-figures.txt}.
 */
class DestinationIsolationFaultIT {

    private static final int ORDERS = 120;
    private static final Path DIR = Path.of("target", "fault-isolation").toAbsolutePath();
    private static final String TOKEN = "isolation-order-service-" + UUID.randomUUID();
    private static final String DB_PASSWORD = "isolation-db-" + UUID.randomUUID();
    /** The schedule of the scenario: 12 s in all; the outage lasts more than twice that. */
    private static final String BACKOFF = "1s,1s,2s,2s,3s,3s";
    private static final Duration OUTAGE = Duration.ofSeconds(30);

    private static MariaDbServer database;
    private static ScenarioRows rows;
    private static DestinationDouble healthy;
    private static DestinationDouble flaky;
    private static ProviderKeys keys;
    private static ProviderSigner signer;
    private static ServiceInstance a;
    private static ServiceInstance b;
    private static final String HEALTHY_SECRET = secret(1);
    private static final String FLAKY_SECRET = secret(2);
    private static final List<String> figures = new ArrayList<>();

    @BeforeAll
    static void start() throws Exception {
        database = Tier.freshDatabase(DIR);
        rows = new ScenarioRows(database::connect);
        healthy = new DestinationDouble(FreePorts.next(), HEALTHY_SECRET);
        flaky = new DestinationDouble(FreePorts.next(), FLAKY_SECRET);
        keys = ProviderKeys.generate();
        signer = new ProviderSigner(keys);
        a = instance("a");
        b = instance("b");
        Tier.startInTurn(Duration.ofSeconds(90), a, b);
    }

    @AfterAll
    static void stop() throws Exception {
        Tier.closeAll(a, b, healthy, flaky, database);
        Tier.writeFigures(DIR.resolve("isolation-figures.txt"), figures);
    }

    private static String secret(int seed) {
        byte[] key = new byte[32];
        new Random(seed).nextBytes(key);
        return "whsec_" + Base64.getEncoder().encodeToString(key);
    }

    private static ServiceInstance instance(String name) {
        Map<String, String> config = ServiceInstance.tierConfig(keys, "127.0.0.1:" + database.port() + "/"
                + MariaDbServer.DATABASE, DB_PASSWORD, TOKEN);
        String prefix = "paycallback.downstream.destinations.";
        config.put(prefix + "healthy.url", healthy.url());
        config.put(prefix + "healthy.events", "order.paid");
        config.put(prefix + "healthy.signing-secret", HEALTHY_SECRET);
        config.put(prefix + "flaky.url", flaky.url());
        config.put(prefix + "flaky.events", "order.paid");
        config.put(prefix + "flaky.signing-secret", FLAKY_SECRET);
        config.put(prefix + "flaky.timeout", "2s");
        config.put("paycallback.downstream.retry.backoff", BACKOFF);
        config.put("paycallback.downstream.breaker.probe-interval", "2s");
        config.put("paycallback.downstream.breaker.disable-after", "1h");
        return new ServiceInstance(name, DIR.resolve(name), FreePorts.next(), FreePorts.next(), config);
    }

    @Test
    void aDestinationDeadForLongerThanItsScheduleCostsTheHealthyOneNothingAndGetsEveryEventOnceWhenBack() throws Exception {
        // Both answer: a first round warms both JVMs up, the second is the healthy destination's pace.
        pay("H");
        Latency before = pay("I");

        // The second destination dies, and stays dead for more than twice its whole schedule.
        flaky.silent(true);
        Instant died = Instant.now();
        int flakyRequestsBefore = flaky.requests();
        Latency during = pay("J");
        Duration left = OUTAGE.minus(Duration.between(died, Instant.now()));
        if (!left.isNegative()) {
            Thread.sleep(left.toMillis());
        }
        int flakyRequestsDuring = flaky.requests() - flakyRequestsBefore;
        int circuitState = circuit("flaky");
        int spent = count("SELECT COALESCE(MAX(retry_count), 0) FROM outbox WHERE destination = 'flaky' AND out_trade_no LIKE ?", "FJ-%");
        int deadDuring = count("SELECT COUNT(*) FROM outbox WHERE status = 2 AND out_trade_no LIKE ?", "F%");
        int parkedDuring = count("SELECT COUNT(*) FROM outbox WHERE destination = 'flaky' AND status = 0"
                + " AND lease_token = 'parked' AND out_trade_no LIKE ?", "FJ-%");

        // Back: the next probe closes the circuit and everything that waited follows.
        flaky.silent(false);
        Instant back = Instant.now();
        for (String scenario : List.of("H", "I", "J")) {
            rows.awaitNothingPending(scenario);
        }
        Duration recovered = Duration.between(back, Instant.now());

        figures.add("healthy alone, " + ORDERS + " orders: " + before);
        figures.add("healthy beside a dead destination, " + ORDERS + " orders: " + during);
        figures.add("dead destination: circuit state at the end of the outage " + circuitState + ", " + flakyRequestsDuring
                + " requests in " + OUTAGE.toSeconds() + " s (tries until the circuit opened, then probes), " + parkedDuring
                + " of its " + ORDERS + " events parked at the end, most tries any event spent " + spent + ", recovered "
                + recovered.toMillis() + " ms after it answered again");

        assertThat(circuitState).as("the dead destination's circuit during the outage (1 open, 2 half-open)").isIn(1, 2);
        assertThat(deadDuring).as("dead letters during the outage").isZero();
        assertThat(parkedDuring).as("the dead destination's events waiting, parked (but a probe's)").isBetween(ORDERS - 1, ORDERS);
        assertThat(spent).as("tries an event of the dead destination spent, of the " + BACKOFF.split(",").length
                + " its schedule has").isLessThan(BACKOFF.split(",").length);
        assertThat(during.p99()).as("the healthy destination's p99 beside the dead one, against alone (%s)", before)
                .isLessThanOrEqualTo(Math.max(before.p99() * 2, before.p99() + 1_000));
        assertThat(during.max()).as("no healthy event waited for the dead destination's 2 s timeouts")
                .isLessThan(before.max() + 2_000);

        for (String scenario : List.of("H", "I", "J")) {
            assertThat(count("SELECT COUNT(*) FROM outbox WHERE status <> 1 AND out_trade_no LIKE ?", "F" + scenario + "-%"))
                    .as("scenario %s: every event delivered, none pending or dead", scenario).isZero();
            Set<String> paid = strings("SELECT out_trade_no FROM orders WHERE status = 'PAID' AND out_trade_no LIKE ?",
                    "F" + scenario + "-%");
            assertThat(paid).as("scenario %s: orders paid", scenario).hasSize(ORDERS);
            for (DestinationDouble destination : List.of(healthy, flaky)) {
                Map<String, String> orders = destination.orders();
                Map<String, Integer> accepted = destination.accepted();
                Set<String> seen = orders.entrySet().stream().filter(e -> e.getValue().startsWith("F" + scenario + "-"))
                        .map(Map.Entry::getValue).collect(Collectors.toSet());
                assertThat(seen).as("scenario %s: every paid order's event reached %s", scenario, destination.url())
                        .isEqualTo(paid);
                assertThat(orders.entrySet().stream().filter(e -> e.getValue().startsWith("F" + scenario + "-"))
                        .map(e -> accepted.get(e.getKey())))
                        .as("scenario %s: each event accepted exactly once", scenario).allMatch(n -> n == 1);
            }
        }
        assertThat(healthy.unverified() + flaky.unverified()).as("deliveries whose signature did not verify").isZero();
        for (ServiceInstance instance : List.of(a, b)) {
            assertThat(ServiceLogs.unexpectedStackTraces(instance.log(), List.of())).as(instance.name()).isEmpty();
            assertThat(instance.log()).as(instance.name()).doesNotContain(HEALTHY_SECRET.substring(6))
                    .doesNotContain(FLAKY_SECRET.substring(6)).doesNotContain("Uncaught exception");
        }
        assertThat(a.log() + b.log()).contains("Destination flaky: circuit open").contains("Destination flaky: circuit closed");
    }

    /** The healthy destination's time from each callback stored to its event delivered, in ms, by the database's clock. */
    record Latency(int events, long p50, long p99, long max) {
        @Override
        public String toString() {
            return events + " events, callback stored to delivered p50 " + p50 + " ms, p99 " + p99 + " ms, max " + max + " ms";
        }
    }

    private Latency pay(String scenario) throws Exception {
        Load load = new Load();
        List<Load.Payment> payments = Load.payments(signer, scenario, ORDERS);
        load.register(a, TOKEN, payments);
        load.send(payments, Duration.ofMillis(25), copy -> copy == 1 ? b : a);
        load.close();
        Instant deadline = Instant.now().plusSeconds(60);
        while (Instant.now().isBefore(deadline) && count("SELECT COUNT(*) FROM outbox WHERE destination = 'healthy'"
                + " AND status = 1 AND out_trade_no LIKE ?", "F" + scenario + "-%") < ORDERS) {
            Thread.sleep(100);
        }
        List<Long> millis = new ArrayList<>();
        try (Connection connection = database.connect(); PreparedStatement statement = connection.prepareStatement("""
                SELECT TIMESTAMPDIFF(MICROSECOND, p.created_at, x.updated_at) DIV 1000
                FROM outbox x JOIN pay_callback_log p ON p.out_trade_no = x.out_trade_no
                WHERE x.destination = 'healthy' AND x.status = 1 AND x.out_trade_no LIKE ?""")) {
            statement.setString(1, "F" + scenario + "-%");
            try (ResultSet result = statement.executeQuery()) {
                while (result.next()) {
                    millis.add(result.getLong(1));
                }
            }
        }
        millis.sort(Long::compare);
        assertThat(millis).as("scenario %s: the healthy destination got every event", scenario).hasSize(ORDERS);
        return new Latency(millis.size(), millis.get((millis.size() - 1) / 2), millis.get((int) ((millis.size() - 1) * 0.99)),
                millis.get(millis.size() - 1));
    }

    private static int circuit(String destination) throws Exception {
        try (Connection connection = database.connect();
             PreparedStatement statement = connection.prepareStatement(
                     "SELECT state, probe_until > NOW(3) FROM destination_circuits WHERE destination = ?")) {
            statement.setString(1, destination);
            try (ResultSet result = statement.executeQuery()) {
                result.next();
                return result.getInt(1) == 1 && result.getBoolean(2) ? 2 : result.getInt(1);
            }
        }
    }

    private static int count(String sql, String pattern) throws Exception {
        try (Connection connection = database.connect(); PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.setString(1, pattern);
            try (ResultSet result = statement.executeQuery()) {
                result.next();
                return result.getInt(1);
            }
        }
    }

    private static Set<String> strings(String sql, String pattern) throws Exception {
        Set<String> values = new java.util.HashSet<>();
        try (Connection connection = database.connect(); PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.setString(1, pattern);
            try (ResultSet result = statement.executeQuery()) {
                while (result.next()) {
                    values.add(result.getString(1));
                }
            }
        }
        return values;
    }
}
