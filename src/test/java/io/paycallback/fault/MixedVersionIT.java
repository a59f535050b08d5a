package io.paycallback.fault;

import io.paycallback.testsupport.FreePorts;
import io.paycallback.testsupport.ProviderKeys;
import io.paycallback.testsupport.ProviderSigner;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
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
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A rolling upgrade and its rollback, as Kubernetes runs them: the previous release (N-1, built from git history by
 * {@code .ci/mixed-version}, its runner named by {@code -Dprevious.runner}) and this build (N) on one MariaDB of the
 * tier's own. N-1 starts alone on an empty database and serves; N starts beside it and migrates while N-1 keeps
 * answering; both serve, each callback's copies split across the two versions, orders closed by either version at an
 * unreachable provider (CLOSING) and then paid; N-1 gets SIGTERM under load; then N gets SIGTERM with its events
 * undelivered (the destination down) and N-1 starts again on the migrated schema (the rollback) and serves alone. Every phase
 * ends with the fault tier's guarantee ({@link ScenarioRows#converge}); the tier ends with nothing pending and no dead
 * letter in any leased table, no 500 from either version, and no uncaught exception, unexpected stack trace or secret
 * in any log. It waits for what each step causes, never for a fixed time. Figures go to {@code target/mixed/figures.txt}.
 */
class MixedVersionIT {

    private static final Path DIR = Path.of("target", "mixed").toAbsolutePath();
    private static final String TOKEN = "mixed-order-service-" + UUID.randomUUID();
    private static final String DB_PASSWORD = "mixed-db-" + UUID.randomUUID();
    private static final String STRIPE_API_KEY = "sk_test_mixed" + UUID.randomUUID().toString().replace("-", "");
    private static final Duration START_BOUND = Duration.ofSeconds(90);
    /** Settings of the fault tier that N-1 (.ci/previous-release) does not have. */
    private static final List<String> N_ONLY = List.of("paycallback.downstream.retry.backoff");
    private static final Duration STEP_BOUND = Duration.ofSeconds(60);
    private static final Pattern PROCESSED = Pattern.compile(
            "paycallback_processing_total\\{[^}]*table=\"pay_callback_log\"[^}]*} ([0-9.E]+)");
    /**
     * Vert.x's acceptor logs one for a connection that arrives in the last moments of a shutdown (see ServiceFaultIT):
     * the client sees a reset connection, like any refused one.
     */
    private static final List<String> ALLOWED_TRACES = List.of(
            "[io.netty.bootstrap.ServerBootstrap] (vert.x-acceptor-thread-0) Failed to register an accepted channel");
    private static final Pattern STACK_FRAME = Pattern.compile("\\s+(at |\\.\\.\\. \\d+ more)");
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private static MariaDbServer database;
    private static ScenarioRows rows;
    private static FailingSink sink;
    private static ProviderKeys keys;
    private static ProviderSigner signer;
    private static Path previousRunner;
    private static int unreachableProvider;
    private static final List<ServiceInstance> instances = new ArrayList<>();
    private static final List<Load> loads = new ArrayList<>();
    private static final List<String> figures = new ArrayList<>();

    @BeforeAll
    static void start() throws Exception {
        String runner = System.getProperty("previous.runner", "");
        assertThat(runner).as("-Dprevious.runner=<the previous release's target/quarkus-app/quarkus-run.jar>,"
                + " which .ci/mixed-version builds from .ci/previous-release").isNotBlank();
        previousRunner = Path.of(runner).toAbsolutePath();
        assertThat(previousRunner).as("the previous release's runner").isRegularFile();
        figures.add("N-1: " + previousRunner);
        database = Tier.freshDatabase(DIR);
        rows = new ScenarioRows(database::connect);
        sink = new FailingSink(FreePorts.next());
        keys = ProviderKeys.generate();
        signer = new ProviderSigner(keys);
        // Nothing listens here: a close at Stripe is never answered, so the order stays CLOSING and its close request
        // is retried on the backoff by whichever version leases it.
        unreachableProvider = FreePorts.next();
    }

    @AfterAll
    static void stop() throws Exception {
        for (ServiceInstance instance : instances) {
            instance.close();
        }
        loads.forEach(Load::close);
        Tier.closeAll(sink, database);
        if (sink != null) {
            figures.add(sink.figure());
        }
        Tier.writeFigures(DIR.resolve("figures.txt"), figures);
    }

    @Test
    void anUpgradeBesideThePreviousReleaseAndARollbackToItServeEveryCallbackOnce() throws Exception {
        Instant tierStarted = Instant.now();
        ServiceInstance old = instance("old", previousRunner, Map.of());
        ServiceInstance current = instance("new", Path.of("target", "quarkus-app", "quarkus-run.jar"), Map.of());
        // The previous release predates quarkus.flyway.ignore-future-migrations in application.properties: without it
        // in the environment (docs/changes.md, "Rolling back") it would refuse N's migrations as unknown at its start.
        ServiceInstance rolledBack = instance("old-again", previousRunner,
                Map.of("quarkus.flyway.ignore-future-migrations", "true"));

        theOldReleaseAloneOnAnEmptyDatabase(old);
        theNewReleaseMigratesWhileTheOldOneServes(old, current);
        bothServeEachCallbackSplitAcrossTheVersions(old, current);
        theOldReleaseStoppedUnderLoadLeavesItsShareToTheNew(old, current);
        theRollbackServesAloneOnTheMigratedSchema(current, rolledBack);

        assertThat(leasedTableRows("status = 0")).as("pending rows in any leased table at the end").isEmpty();
        assertThat(leasedTableRows("status = 2")).as("dead letters in any leased table").isEmpty();
        for (Load load : loads) {
            assertThat(load.answers()).as("answers to the callbacks: no 500 from either version").doesNotContainKey(500);
        }
        Map<String, Long> errorLines = new LinkedHashMap<>();
        for (ServiceInstance instance : instances) {
            String log = instance.log();
            errorLines.put(instance.name(), log.lines().filter(line -> line.contains(" ERROR ")).count());
            assertThat(log).as(instance.name()).doesNotContain("Uncaught exception").doesNotContain("Result is already complete");
            assertThat(ServiceLogs.unexpectedStackTraces(log, ALLOWED_TRACES)).as(instance.name() + ": stack traces under these lines").isEmpty();
            assertThat(log).as(instance.name())
                    .doesNotContain(DB_PASSWORD, TOKEN, STRIPE_API_KEY, keys.apiV3Key(), keys.stripeSecret())
                    .doesNotContain(keys.wxPublicDer().substring(40, 100), keys.alipayPublicDer().substring(40, 100));
        }
        figures.add("tier took " + Duration.between(tierStarted, Instant.now()).toSeconds() + " s, ERROR lines logged: " + errorLines);
    }

    /** N-1 as it ran before the rollout: it creates the schema up to its own last migration and serves alone. */
    private void theOldReleaseAloneOnAnEmptyDatabase(ServiceInstance old) throws Exception {
        Duration started = start(old);
        assertThat(schemaVersion()).as("the schema N-1 migrated an empty database to").isLessThan(newestMigration());
        figures.add("N-1 started on an empty database in " + started.toMillis() + " ms and migrated it to V" + schemaVersion());

        Load load = load();
        List<Load.Payment> payments = Load.payments(signer, "M1", 30);
        load.register(old, TOKEN, payments);
        load.send(payments, Duration.ofMillis(20), copy -> old);
        converge("M1", load, payments, "N-1 alone", "");
    }

    /**
     * N starts while N-1 serves, as the first new pod of a rollout: its JVM starts, Flyway applies N's migrations, it
     * becomes ready. Callbacks go to N-1 all along, and N-1 must stay ready and answer every one of them.
     */
    private void theNewReleaseMigratesWhileTheOldOneServes(ServiceInstance old, ServiceInstance current) throws Exception {
        int schemaBefore = schemaVersion();
        Load load = load();
        List<Load.Payment> all = Load.payments(signer, "M2", 300);
        List<Load.Payment> sent = new ArrayList<>();
        Duration started;
        try (ReadinessWatch watch = new ReadinessWatch(List.of(old))) {
            Instant starting = Instant.now();
            current.start();
            // A few orders at a time, registered and paid through N-1, until N is ready.
            while (!current.ready()) {
                if (!current.alive()) {
                    throw notStarted(current, "it exited, see " + DIR.resolve("new/console.log"));
                }
                assertThat(Duration.between(starting, Instant.now())).as("N ready").isLessThan(START_BOUND);
                assertThat(sent.size() + 3).as("orders enough for N's start").isLessThanOrEqualTo(all.size());
                List<Load.Payment> chunk = all.subList(sent.size(), sent.size() + 3);
                load.register(old, TOKEN, chunk);
                load.send(chunk, Duration.ZERO, copy -> old);
                sent.addAll(chunk);
            }
            started = Duration.between(starting, Instant.now());
            assertThat(watch.notReadySeconds()).as("N-1 not ready while N started and migrated").containsEntry("old", 0.0);
        }
        assertThat(schemaVersion()).as("N migrated the schema").isEqualTo(newestMigration()).isGreaterThan(schemaBefore);
        assertThat(load.answers()).as("N-1's answers while N started").containsOnlyKeys(200);
        assertThat(old.ready()).as("N-1 ready on N's schema").isTrue();
        converge("M2", load, sent, "N starts and migrates V" + schemaBefore + " to V" + schemaVersion() + " while N-1 serves",
                "N ready after=" + started.toMillis() + " ms, callbacks N-1 answered meanwhile=" + sent.size());
    }

    /**
     * Both versions serve, leasing the same tables: every callback's first two copies reach N-1 and N at the same
     * instant (the unique key decides which INSERT stores it), the third goes to N-1. Orders are registered through
     * both, and some closed at Stripe, which is unreachable, through each: they stay CLOSING with a close request that
     * either version retries, until their payment (stored by either) makes them PAID and ends the request.
     */
    private void bothServeEachCallbackSplitAcrossTheVersions(ServiceInstance old, ServiceInstance current) throws Exception {
        Load load = load();
        List<Load.Payment> payments = Load.payments(signer, "M3", 60);
        List<Load.Payment> viaOld = new ArrayList<>();
        List<Load.Payment> viaNew = new ArrayList<>();
        for (int i = 0; i < payments.size(); i++) {
            (i % 2 == 0 ? viaOld : viaNew).add(payments.get(i));
        }
        long workedByOld = processed(old);
        long workedByNew = processed(current);
        load.register(old, TOKEN, viaOld);
        load.register(current, TOKEN, viaNew);
        List<String> closing = new ArrayList<>();
        for (int i = 0; i < payments.size(); i += 6) {
            String order = payments.get(i).outTradeNo();
            ServiceInstance closer = i % 12 == 0 ? current : old;
            HttpResponse<String> closed = orderApi(closer, "/internal/orders/" + order + "/close", true);
            assertThat(closed.statusCode()).as(closer.name() + " closing " + order + " at an unreachable Stripe: " + closed.body())
                    .isEqualTo(202);
            closing.add(order);
        }
        load.send(payments, Duration.ofMillis(20), copy -> copy == 1 ? current : old);
        Map<String, Object> figure = rows.converge("M3", load, payments, sink);
        awaitUntil("the close requests of M3 ended", () -> count("SELECT COUNT(*) FROM close_requests WHERE status <> 1"
                + " AND out_trade_no LIKE 'FM3-%'") == 0);
        assertThat(count("SELECT COUNT(*) FROM close_requests WHERE outcome = 'paid' AND out_trade_no LIKE 'FM3-%'"))
                .as("close requests ended by the payment").isEqualTo(closing.size());
        for (String order : closing) {
            for (ServiceInstance instance : List.of(old, current)) {
                HttpResponse<String> read = orderApi(instance, "/internal/orders/" + order, false);
                assertThat(read.statusCode()).as(instance.name() + " reading " + order).isEqualTo(200);
                assertThat(read.body()).as(instance.name() + " reading " + order).contains("\"PAID\"");
            }
        }
        int closeTries = count("SELECT SUM(retry_count) FROM close_requests WHERE out_trade_no LIKE 'FM3-%'");
        figures.add("M3 both serve, copies split across the versions: " + figure + ", closed CLOSING then paid=" + closing.size()
                + " (close tries failed at the unreachable Stripe=" + closeTries + ")"
                + ", payment rows worked by N-1=" + (processed(old) - workedByOld) + " and by N=" + (processed(current) - workedByNew));
    }

    /** SIGTERM to N-1 as the rollout replaces its pod, while callbacks still reach it; N serves what it leaves. */
    private void theOldReleaseStoppedUnderLoadLeavesItsShareToTheNew(ServiceInstance old, ServiceInstance current) throws Exception {
        Load load = load();
        List<Load.Payment> payments = Load.payments(signer, "M4", 45);
        load.register(current, TOKEN, payments);
        sink.delay(200);
        CompletableFuture<Void> sending = Tier.background(() -> load.send(payments, Duration.ofMillis(30), copy -> copy == 0 ? old : current));
        awaitUntil(payments.size() / 3 + " callbacks acknowledged", () -> load.acknowledged().size() >= payments.size() / 3);
        int leased = rows.leased("M4");
        int logBefore = old.log().length();
        Duration shutdown = old.terminate();
        String shutdownLog = old.log().substring(logBefore);
        sending.get();
        sink.delay(0);
        assertThat(shutdownLog).as("N-1's shutdown").contains("stopped in");
        // 82fc41d's workers did not wait for the tries still awaiting an HTTP answer (3e74cc9 made them wait within the
        // grace), so such a try can end after the container stopped and fail to record its failure: the row stays
        // leased and N tries it once the lease runs out, which converge checks. Any other ERROR fails the phase.
        assertThat(shutdownLog.lines().filter(line -> line.contains(" ERROR ")))
                .as("N-1's shutdown: ERROR lines other than its known unrecorded failures")
                .allMatch(line -> line.contains("Could not record the failure of outbox #")
                        && line.endsWith("[Error Occurred After Shutdown]"));
        assertThat(load.acknowledged()).as("every callback acknowledged, by N when N-1 was gone").hasSize(payments.size());
        converge("M4", load, payments, "SIGTERM to N-1 under load", "rows under lease at N-1's SIGTERM=" + leased
                + ", its graceful shutdown took=" + shutdown.toMillis() + " ms");
    }

    /**
     * {@code kubectl rollout undo}: N gets SIGTERM while the destination is down, every M5 event having spent a try at
     * N or been parked by the destination's open circuit, and N-1 starts again on the schema N migrated and serves
     * alone. It must deliver what N left, continuing the tries N counted and taking over the parked events once their
     * parking ends (N-1 knows no circuits), and serve new callbacks, losing nothing.
     */
    private void theRollbackServesAloneOnTheMigratedSchema(ServiceInstance current, ServiceInstance rolledBack) throws Exception {
        Load left = load();
        List<Load.Payment> payments = Load.payments(signer, "M5", 30);
        left.register(current, TOKEN, payments);
        sink.down(true);
        left.send(payments, Duration.ofMillis(10), copy -> current);
        // Refused until the destination's circuit opens, parked by it after that: either way held by N, not delivered.
        awaitUntil("every M5 event tried by N and refused, or parked", () -> count("SELECT COUNT(*) FROM outbox"
                + " WHERE status = 0 AND (retry_count > 0 OR lease_token = 'parked') AND type = 'order.paid'"
                + " AND out_trade_no LIKE 'FM5-%'") == payments.size());
        int parkedAtStop = count("SELECT COUNT(*) FROM outbox WHERE status = 0 AND lease_token = 'parked'"
                + " AND out_trade_no LIKE 'FM5-%'");
        int pendingAtStop = rows.pending("M5");
        int logBefore = current.log().length();
        Duration shutdown = current.terminate();
        sink.down(false);
        assertThat(current.log().substring(logBefore)).as("N's shutdown").contains("stopped in").doesNotContain(" ERROR ");

        int schema = schemaVersion();
        Duration started = start(rolledBack);
        converge("M5", left, payments, "N stopped with its events undelivered, delivered by N-1 after the rollback",
                "pending at N's SIGTERM=" + pendingAtStop + " (parked by its circuit: " + parkedAtStop + "), N's shutdown took=" + shutdown.toMillis()
                        + " ms, N-1 started on V" + schema + " in " + started.toMillis() + " ms");

        Load load = load();
        List<Load.Payment> alone = Load.payments(signer, "M6", 30);
        load.register(rolledBack, TOKEN, alone);
        load.send(alone, Duration.ofMillis(20), copy -> rolledBack);
        converge("M6", load, alone, "N-1 alone after the rollback", "");
    }

    private static ServiceInstance instance(String name, Path runner, Map<String, String> extra) {
        Map<String, String> config = ServiceInstance.tierConfig(keys, "127.0.0.1:" + database.port() + "/" + MariaDbServer.DATABASE,
                DB_PASSWORD, sink, TOKEN);
        // Stripe API keys make the merchant's closes go to Stripe first (closing/OrderClosing), at a port nobody serves.
        config.put("paycallback.merchants." + ProviderKeys.MERCHANT + ".stripe.api-key", STRIPE_API_KEY);
        config.put("paycallback.providers.stripe.base-url", "http://127.0.0.1:" + unreachableProvider);
        config.put("paycallback.providers.timeout", "2s");
        // With Stripe keys, yesterday's Stripe statement would be fetched at 02:00 UTC, from the same unreachable port.
        config.put("paycallback.statements.stripe.cron", "off");
        if (runner.equals(previousRunner)) {
            // A key a release does not know stops its start: N-1 keeps its outbox on the shared schedule.
            N_ONLY.forEach(config::remove);
        } else {
            // Short, so that N-1 takes over what N's open circuit parked within the phase, as it would an hour later.
            config.put("paycallback.downstream.breaker.parked-for", "5s");
        }
        config.putAll(extra);
        ServiceInstance instance = new ServiceInstance(name, runner, DIR.resolve(name), FreePorts.next(), FreePorts.next(), config);
        instances.add(instance);
        return instance;
    }

    /** Starts the instance and waits until it is ready; its start-up time. */
    private static Duration start(ServiceInstance instance) throws Exception {
        Instant starting = Instant.now();
        instance.start();
        try {
            instance.awaitReady(START_BOUND);
        } catch (IllegalStateException failed) {
            throw notStarted(instance, failed.getMessage());
        }
        return Duration.between(starting, Instant.now());
    }

    /**
     * A failed start, with its log from the first ERROR line on, stack frames left out: the causes' messages name what
     * stopped it (Flyway's validation, a setting).
     */
    private static AssertionError notStarted(ServiceInstance instance, String how) throws Exception {
        String log = instance.log();
        int error = log.indexOf(" ERROR ");
        String cause = error < 0 ? "" : log.substring(log.lastIndexOf('\n', error) + 1).lines()
                .filter(line -> !STACK_FRAME.matcher(line).lookingAt()).limit(12).reduce("", (lines, line) -> lines + "\n" + line);
        return new AssertionError(instance.name() + " did not start: " + how + cause);
    }

    private static Load load() {
        Load load = new Load();
        loads.add(load);
        return load;
    }

    private static void converge(String scenario, Load load, List<Load.Payment> payments, String title, String extra) throws Exception {
        figures.add(scenario + " " + title + ": " + rows.converge(scenario, load, payments, sink) + (extra.isEmpty() ? "" : ", " + extra));
    }

    /** The order service's API on one instance: a POST without a body, or a GET. */
    private static HttpResponse<String> orderApi(ServiceInstance instance, String path, boolean post) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(instance.base().resolve(path)).timeout(Duration.ofSeconds(15))
                .header("Authorization", "Bearer " + TOKEN);
        return HTTP.send((post ? request.POST(HttpRequest.BodyPublishers.noBody()) : request.GET()).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** Payment rows the instance worked, by its own count. */
    private static long processed(ServiceInstance instance) {
        long total = 0;
        Matcher matcher = PROCESSED.matcher(instance.metrics());
        while (matcher.find()) {
            total += (long) Double.parseDouble(matcher.group(1));
        }
        return total;
    }

    private static int schemaVersion() throws SQLException {
        return count("SELECT MAX(CAST(version AS UNSIGNED)) FROM flyway_schema_history WHERE success = 1");
    }

    /** The highest migration this build ships. */
    private static int newestMigration() throws Exception {
        Pattern version = Pattern.compile("V(\\d+)__.*\\.sql");
        try (var files = Files.list(Path.of("src", "main", "resources", "db", "migration"))) {
            return files.map(file -> version.matcher(file.getFileName().toString()))
                    .filter(Matcher::matches).mapToInt(m -> Integer.parseInt(m.group(1))).max().orElseThrow();
        }
    }

    /**
     * Rows of every leased table (a status and a lease, archives aside) that match {@code condition}, counted per
     * table; only the tables with any.
     */
    private static Map<String, Integer> leasedTableRows(String condition) throws SQLException {
        Map<String, Integer> found = new LinkedHashMap<>();
        List<String> tables = new ArrayList<>();
        try (Connection connection = database.connect(); Statement statement = connection.createStatement()) {
            try (ResultSet leased = statement.executeQuery("SELECT table_name FROM information_schema.columns"
                    + " WHERE table_schema = '" + MariaDbServer.DATABASE + "' AND column_name = 'lease_token'"
                    + " AND table_name NOT LIKE '%\\_archive' ORDER BY table_name")) {
                while (leased.next()) {
                    tables.add(leased.getString(1));
                }
            }
            for (String table : tables) {
                try (ResultSet counted = statement.executeQuery("SELECT COUNT(*) FROM " + table + " WHERE " + condition)) {
                    counted.next();
                    if (counted.getInt(1) > 0) {
                        found.put(table, counted.getInt(1));
                    }
                }
            }
        }
        return found;
    }

    private static int count(String sql) throws SQLException {
        try (Connection connection = database.connect(); Statement statement = connection.createStatement();
             ResultSet result = statement.executeQuery(sql)) {
            result.next();
            return result.getInt(1);
        }
    }

    /** Polls until the condition holds; fails the tier if it has not within {@link #STEP_BOUND}. */
    private static void awaitUntil(String what, Condition condition) throws Exception {
        Instant deadline = Instant.now().plus(STEP_BOUND);
        while (!condition.holds()) {
            if (Instant.now().isAfter(deadline)) {
                throw new AssertionError("not within " + STEP_BOUND + ": " + what);
            }
            Thread.sleep(50);
        }
    }

    private interface Condition {
        boolean holds() throws Exception;
    }
}
