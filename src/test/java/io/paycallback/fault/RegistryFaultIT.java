package io.paycallback.fault;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.paycallback.registry.Fingerprint;
import io.paycallback.testsupport.FreePorts;
import io.paycallback.testsupport.ProviderKeys;
import io.paycallback.testsupport.ProviderSigner;
import io.paycallback.testsupport.SignedCallback;
import io.paycallback.testsupport.TcpProxy;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The merchant registry's promise with real processes: a change made through one instance's admin API is served by
 * the other within 5 s, with the default poll interval of 1 s. Two processes of the packaged service share one MariaDB
 * of the tier's own, each through a proxy of its own, so one instance can lose the database while the other keeps it.
 * When each instance serves a version is read from its {@code paycallback_registry_version} gauge, sampled every 50 ms
 * on the management port (which needs no database); a sample counts from when its answer arrived, never earlier than
 * the instance really served it. Figures in {@code target/fault-registry/registry-figures.txt}.
 */
class RegistryFaultIT {

    private static final Path DIR = Path.of("target", "fault-registry").toAbsolutePath();
    private static final String TOKEN = "registry-order-service-" + UUID.randomUUID();
    private static final String OPERATOR_TOKEN = "registry-operator-" + UUID.randomUUID();
    private static final String DB_PASSWORD = "registry-db-" + UUID.randomUUID();
    private static final String KEY_ENCRYPTION_KEY = "fault:" + Base64.getEncoder().encodeToString(randomBytes(32));
    private static final String OLD_SECRET = "whsec_" + HexFormat.of().formatHex(randomBytes(24));
    private static final String NEW_SECRET = "whsec_" + HexFormat.of().formatHex(randomBytes(24));
    /** What the documentation promises: every instance serves a change within its poll interval plus a rebuild. */
    private static final Duration PROPAGATION = Duration.ofSeconds(5);
    private static final Duration FAULT_BOUND = Duration.ofSeconds(60);
    /** Quarkus's datasource health check attaches one to its warning while the database is unreachable. */
    private static final List<String> ALLOWED_TRACES = List.of(
            "[io.quarkus.reactive.datasource.runtime.ReactiveDatasourceHealthCheck]");
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private static MariaDbServer database;
    private static TcpProxy proxyA;
    private static TcpProxy proxyB;
    private static ProviderKeys keys;
    private static ProviderSigner signer;
    private static ServiceInstance a;
    private static ServiceInstance b;
    private static ServedVersions served;
    private static final List<String> figures = new CopyOnWriteArrayList<>();
    private int logStartA;
    private int logStartB;

    @BeforeAll
    static void start() throws Exception {
        database = Tier.freshDatabase(DIR);
        proxyA = new TcpProxy(FreePorts.next(), "127.0.0.1", database.port());
        proxyB = new TcpProxy(FreePorts.next(), "127.0.0.1", database.port());
        keys = ProviderKeys.generate();
        signer = new ProviderSigner(keys);
        a = instance("a", proxyA);
        b = instance("b", proxyB);
        Tier.startInTurn(Duration.ofSeconds(90), a, b);
        served = new ServedVersions(a, b);
    }

    @AfterAll
    static void stop() throws Exception {
        Tier.closeAll(served, a, b, proxyA, proxyB, database);
        Tier.writeFigures(DIR.resolve("registry-figures.txt"), figures);
    }

    @BeforeEach
    void bothReady() throws Exception {
        for (ServiceInstance instance : List.of(a, b)) {
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
            ServiceLogs.assertClean(instance.name(), log, ALLOWED_TRACES, List.of(DB_PASSWORD, TOKEN, OPERATOR_TOKEN,
                    KEY_ENCRYPTION_KEY.substring(KEY_ENCRYPTION_KEY.indexOf(':') + 1), OLD_SECRET, NEW_SECRET));
        }
    }

    private static ServiceInstance instance(String name, TcpProxy proxy) {
        Map<String, String> config = ServiceInstance.tierConfig(keys, "127.0.0.1:" + proxy.port() + "/" + MariaDbServer.DATABASE,
                DB_PASSWORD, TOKEN);
        config.put("paycallback.auth.operators.tokens.fault", OPERATOR_TOKEN);
        config.put("paycallback.registry.key-encryption-keys", KEY_ENCRYPTION_KEY);
        return new ServiceInstance(name, DIR.resolve(name), FreePorts.next(), FreePorts.next(), config);
    }

    @Test
    void aSubMerchantMadeThroughOneInstanceIsPaidThroughTheOtherWithinFiveSeconds() throws Exception {
        Platform made = new Platform();
        String merchant = id("shop");
        String account = account();
        String outTradeNo = "RG-" + UUID.randomUUID();
        createOrder(merchant, outTradeNo);
        SignedCallback payment = payment(account, outTradeNo, OLD_SECRET);

        served.awaitVisible(b, made.create(OLD_SECRET));
        change("POST", "/admin/registry/merchants", Map.of("id", merchant), 201);
        long version = change("PUT", "/admin/registry/merchants/" + merchant + "/accounts/stripe",
                Map.of("mode", "sub-merchant", "platform", made.id, "subId", account), 200);
        Instant changed = Instant.now();

        Map<Integer, Integer> before = new TreeMap<>();
        Instant deadline = changed.plus(FAULT_BOUND);
        int status;
        while ((status = Load.post(HTTP, b, made.path(), payment)) != 200) {
            assertThat(Instant.now()).as("b accepts the sub-merchant's event (last answer %d)", status).isBefore(deadline);
            before.merge(status, 1, Integer::sum);
            Thread.sleep(100);
        }
        Duration accepted = Duration.between(changed, Instant.now());
        Duration servedOnB = Duration.between(changed, served.awaitVisible(b, version));

        assertThat(accepted).as("from the change answered by a to the first event b accepts").isLessThan(PROPAGATION);
        awaitUntil("the order paid through b", () -> "PAID".equals(orderStatus(merchant, outTradeNo)));
        // Until b served the sub-merchant it held what it received: signed by the platform, for an account it did not
        // know yet, quarantined and answered 400 so that the provider keeps the event alive.
        assertThat(before.keySet()).as("b's answers before it served the change").isSubsetOf(400);
        assertThat(count("SELECT COUNT(*) FROM quarantine WHERE merchant_id = ?", made.id))
                .as("held in quarantine: one row for the one event pushed again").isEqualTo(before.isEmpty() ? 0 : 1);
        figures.add("1 a sub-merchant made through a, paid through b: accepted by b after=" + accepted.toMillis()
                + " ms, b served version " + version + " after=" + servedOnB.toMillis() + " ms, answers before="
                + before + " (held in quarantine)");
    }

    @Test
    void aSecretRotatedThroughOneInstanceWhileEventsFlowToBothRefusesNoLiveSecretAndAcceptsNoRetiredOne() throws Exception {
        Platform made = new Platform();
        String merchant = id("shop");
        String account = account();
        made.create(OLD_SECRET);
        change("POST", "/admin/registry/merchants", Map.of("id", merchant), 201);
        long subMerchant = change("PUT", "/admin/registry/merchants/" + merchant + "/accounts/stripe",
                Map.of("mode", "sub-merchant", "platform", made.id, "subId", account), 200);
        served.awaitVisible(b, subMerchant);

        List<Sent> sent = new CopyOnWriteArrayList<>();
        AtomicBoolean sending = new AtomicBoolean(true);
        CompletableFuture<Void> sender = CompletableFuture.runAsync(() -> {
            try {
                for (int i = 0; sending.get(); i++) {
                    String secret = i % 2 == 0 ? OLD_SECRET : NEW_SECRET;
                    ServiceInstance to = (i / 2) % 2 == 0 ? a : b;
                    String outTradeNo = "RR-" + i + "-" + UUID.randomUUID();
                    createOrder(merchant, outTradeNo);
                    Instant at = Instant.now();
                    int status = Load.post(HTTP, to, made.path(), payment(account, outTradeNo, secret));
                    sent.add(new Sent(secret, to, at, Instant.now(), status));
                    Thread.sleep(40);
                }
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        awaitMoreAnswers(sent, 20);

        Instant adding = Instant.now();
        long added = change("POST", made.keysPath(), Map.of("value", NEW_SECRET), 200);
        Instant addedOnBoth = served.awaitVisibleOnBoth(added);
        awaitMoreAnswers(sent, 30);
        Instant retiring = Instant.now();
        long retired = change("POST", made.keysPath() + "/" + Fingerprint.of(OLD_SECRET) + "/retire", Map.of(), 200);
        Instant retiredOnBoth = served.awaitVisibleOnBoth(retired);
        awaitMoreAnswers(sent, 30);
        sending.set(false);
        sender.get(30, TimeUnit.SECONDS);

        assertThat(Duration.between(adding, addedOnBoth)).as("the new secret served by both").isLessThan(PROPAGATION);
        assertThat(Duration.between(retiring, retiredOnBoth)).as("the old secret retired on both").isLessThan(PROPAGATION);
        List<Sent> live = sent.stream().filter(event -> event.secret.equals(OLD_SECRET)
                ? event.answered.isBefore(retiring) : !event.sent.isBefore(addedOnBoth)).toList();
        List<Sent> retiredEverywhere = sent.stream()
                .filter(event -> event.secret.equals(OLD_SECRET) && !event.sent.isBefore(retiredOnBoth)).toList();
        List<Sent> inGrace = sent.stream().filter(event -> !live.contains(event) && !retiredEverywhere.contains(event)).toList();
        assertThat(live).as("events signed with a secret live on both instances").hasSizeGreaterThan(20)
                .allSatisfy(event -> assertThat(event.status).as(event.toString()).isEqualTo(200));
        assertThat(retiredEverywhere).as("events signed with the old secret once both had retired it").hasSizeGreaterThan(5)
                .allSatisfy(event -> assertThat(event.status).as(event.toString()).isEqualTo(400));
        assertThat(live).as("both instances took part").anyMatch(event -> event.to == a).anyMatch(event -> event.to == b);
        figures.add("2 the platform's secret rotated through a while events flow to both: new secret served by both after="
                + Duration.between(adding, addedOnBoth).toMillis() + " ms (a " + served.since(a, added, adding) + ", b "
                + served.since(b, added, adding) + "), old secret retired on both after="
                + Duration.between(retiring, retiredOnBoth).toMillis() + " ms (a " + served.since(a, retired, retiring)
                + ", b " + served.since(b, retired, retiring) + "); events " + sent.size() + ": live " + live.size()
                + " all 200, retired everywhere " + retiredEverywhere.size() + " all 400, in a propagation window "
                + inGrace.size() + " " + answers(inGrace));
    }

    @Test
    void anInstanceThatLostTheDatabaseKeepsItsSnapshotAndCatchesUpOnAChangeMadeMeanwhile() throws Exception {
        Platform made = new Platform();
        String known = id("shop");
        String knownAccount = account();
        String later = id("shop");
        String laterAccount = account();
        made.create(OLD_SECRET);
        change("POST", "/admin/registry/merchants", Map.of("id", known), 201);
        long before = change("PUT", "/admin/registry/merchants/" + known + "/accounts/stripe",
                Map.of("mode", "sub-merchant", "platform", made.id, "subId", knownAccount), 200);
        served.awaitVisible(b, before);
        String knownOrder = "RK-" + UUID.randomUUID();
        String laterOrder = "RL-" + UUID.randomUUID();
        createOrder(known, knownOrder);
        createOrder(later, laterOrder);
        SignedCallback knownEvent = payment(knownAccount, knownOrder, OLD_SECRET);
        int logStart = b.log().length();

        proxyB.cut();
        Instant cut = Instant.now();
        awaitUntil("b logs that the registry could not be read",
                () -> logSince(b, logStart).contains("The merchant registry could not be read"));
        change("POST", "/admin/registry/merchants", Map.of("id", later), 201);
        long during = change("PUT", "/admin/registry/merchants/" + later + "/accounts/stripe",
                Map.of("mode", "sub-merchant", "platform", made.id, "subId", laterAccount), 200);
        // Verified against the snapshot b still serves, then refused only because nothing could be reserved: 500, which
        // the provider retries, where a secret b no longer knew would be a 400 and a merchant it forgot a 404.
        int knownDuringCut = Load.post(HTTP, b, made.path(), knownEvent);
        int forgedDuringCut = Load.post(HTTP, b, made.path(), payment(knownAccount, knownOrder, NEW_SECRET));
        awaitUntil("b failing three registry reads in a row",
                () -> occurrences(logSince(b, logStart), "The merchant registry could not be read") >= 3);
        long servedDuringCut = ServedVersions.version(b).orElseThrow();
        int failedReads = occurrences(logSince(b, logStart), "The merchant registry could not be read");

        proxyB.restore();
        Instant restored = Instant.now();
        Duration caughtUp = Duration.between(restored, served.awaitVisible(b, during));
        int laterOnB = Load.post(HTTP, b, made.path(), payment(laterAccount, laterOrder, OLD_SECRET));
        int knownAgainOnB = Load.post(HTTP, b, made.path(), knownEvent);

        assertThat(servedDuringCut).as("the version b served while the database was away").isEqualTo(before);
        assertThat(knownDuringCut).as("an already served merchant's event on b during the cut").isEqualTo(500);
        assertThat(forgedDuringCut).as("an event with a secret b does not serve, during the cut").isEqualTo(400);
        assertThat(caughtUp).as("b serving the change made during the cut, from the database's return").isLessThan(PROPAGATION);
        assertThat(laterOnB).as("the event of the merchant made during the cut, on b").isEqualTo(200);
        assertThat(knownAgainOnB).as("the provider's retry of the event refused during the cut, on b").isEqualTo(200);
        awaitUntil("both orders paid", () -> "PAID".equals(orderStatus(known, knownOrder))
                && "PAID".equals(orderStatus(later, laterOrder)));
        figures.add("3 b's database connections cut while a sub-merchant is made through a: b served version " + before
                + " throughout (" + failedReads + " failed reads logged in " + Duration.between(cut, restored).toMillis()
                + " ms), caught up on version " + during + " after=" + caughtUp.toMillis()
                + " ms from the database's return; during the cut a served merchant's event answered " + knownDuringCut
                + ", a forged one " + forgedDuringCut);
    }

    /** A Stripe Connect platform made through a's admin API. */
    private static final class Platform {
        final String id = id("mkt");

        /** Made with its Stripe account and {@code secret}; the registry version that made it whole. */
        long create(String secret) throws Exception {
            change("POST", "/admin/registry/platforms", Map.of("id", id), 201);
            return change("PUT", "/admin/registry/platforms/" + id + "/accounts/stripe",
                    Map.of("webhookSecrets", List.of(secret)), 200);
        }

        String path() {
            return "/pay/callback/stripe/" + id;
        }

        String keysPath() {
            return "/admin/registry/platforms/" + id + "/accounts/stripe/keys";
        }
    }

    private record Sent(String secret, ServiceInstance to, Instant sent, Instant answered, int status) {
        @Override
        public String toString() {
            return (secret.equals(OLD_SECRET) ? "old" : "new") + " secret to " + to.name() + " at " + sent + ": " + status;
        }
    }

    /**
     * Every instance's served registry version, sampled every 50 ms; for each version the first sample at or above it,
     * timed when the sample's answer arrived.
     */
    private static final class ServedVersions implements AutoCloseable {
        private final Map<ServiceInstance, ConcurrentSkipListMap<Long, Instant>> seen = new ConcurrentHashMap<>();
        private final ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "registry-version-sampler");
            thread.setDaemon(true);
            return thread;
        });

        ServedVersions(ServiceInstance... instances) {
            for (ServiceInstance instance : instances) {
                seen.put(instance, new ConcurrentSkipListMap<>());
            }
            sampler.scheduleWithFixedDelay(() -> seen.forEach((instance, versions) -> version(instance)
                    .ifPresent(version -> versions.putIfAbsent(version, Instant.now()))), 0, 50, TimeUnit.MILLISECONDS);
        }

        static Optional<Long> version(ServiceInstance instance) {
            return instance.metrics().lines().filter(line -> line.startsWith("paycallback_registry_version"))
                    .map(line -> (long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1))).findFirst();
        }

        Optional<Instant> visible(ServiceInstance instance, long version) {
            return seen.get(instance).tailMap(version).values().stream().min(Instant::compareTo);
        }

        Instant awaitVisible(ServiceInstance instance, long version) throws InterruptedException {
            awaitUntil(instance.name() + " serving registry version " + version, () -> visible(instance, version).isPresent());
            return visible(instance, version).orElseThrow();
        }

        Instant awaitVisibleOnBoth(long version) throws InterruptedException {
            Instant onA = awaitVisible(a, version);
            Instant onB = awaitVisible(b, version);
            return onA.isAfter(onB) ? onA : onB;
        }

        String since(ServiceInstance instance, long version, Instant from) {
            return Duration.between(from, visible(instance, version).orElseThrow()).toMillis() + " ms";
        }

        @Override
        public void close() {
            sampler.shutdownNow();
        }
    }

    /** A change through a's admin API, expecting {@code status}; the registry version it made. */
    private static long change(String method, String path, Map<String, ?> body, int status) throws Exception {
        HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(a.base().resolve(path))
                .timeout(Duration.ofSeconds(15)).header("Authorization", "Bearer " + OPERATOR_TOKEN)
                .header("Content-Type", "application/json")
                .method(method, HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body))).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(method + " " + path + ": " + response.body()).isEqualTo(status);
        return JSON.readTree(response.body()).path("version").asLong();
    }

    /** Registered through a's order API, as the order service does. */
    private static void createOrder(String merchant, String outTradeNo) throws Exception {
        HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(a.base().resolve("/internal/orders"))
                .timeout(Duration.ofSeconds(15)).header("Authorization", "Bearer " + TOKEN)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(Map.of("merchantId", merchant,
                        "outTradeNo", outTradeNo, "amount", "19.99", "currency", "USD")))).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as("order " + outTradeNo + ": " + response.body()).isEqualTo(201);
    }

    private static SignedCallback payment(String account, String outTradeNo, String secret) {
        Instant now = Instant.now();
        return signer.stripeConnect(account, signer.stripePayment(outTradeNo, "pi_" + UUID.randomUUID().toString()
                .replace("-", ""), 1999, "usd", now), now, secret);
    }

    private static String orderStatus(String merchant, String outTradeNo) {
        try (Connection connection = database.connect();
             PreparedStatement statement = connection.prepareStatement(
                     "SELECT status FROM orders WHERE merchant_id = ? AND out_trade_no = ?")) {
            statement.setString(1, merchant);
            statement.setString(2, outTradeNo);
            try (ResultSet row = statement.executeQuery()) {
                return row.next() ? row.getString(1) : null;
            }
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static long count(String sql, String parameter) throws Exception {
        try (Connection connection = database.connect(); PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.setString(1, parameter);
            try (ResultSet row = statement.executeQuery()) {
                row.next();
                return row.getLong(1);
            }
        }
    }

    private static String answers(List<Sent> events) {
        Map<String, Integer> counts = new TreeMap<>();
        events.forEach(event -> counts.merge((event.secret.equals(OLD_SECRET) ? "old " : "new ") + event.status, 1, Integer::sum));
        return counts.toString();
    }

    /** Lets the sender's traffic run on until {@code count} more events were answered. */
    private static void awaitMoreAnswers(List<Sent> sent, int count) throws InterruptedException {
        int target = sent.size() + count;
        awaitUntil(count + " more events answered", () -> sent.size() >= target);
    }

    private static String logSince(ServiceInstance instance, int start) {
        try {
            String log = instance.log();
            return log.substring(Math.min(start, log.length()));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static int occurrences(String text, String line) {
        return text.split(java.util.regex.Pattern.quote(line), -1).length - 1;
    }

    private static void awaitUntil(String what, BooleanSupplier condition) throws InterruptedException {
        Instant deadline = Instant.now().plus(FAULT_BOUND);
        while (!condition.getAsBoolean()) {
            if (Instant.now().isAfter(deadline)) {
                throw new AssertionError("not within " + FAULT_BOUND + ": " + what);
            }
            Thread.sleep(20);
        }
    }

    private static String id(String prefix) {
        return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    private static String account() {
        return "acct_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
    }

    private static byte[] randomBytes(int count) {
        byte[] random = new byte[count];
        new SecureRandom().nextBytes(random);
        return random;
    }
}
