package io.paycallback.delivery;

import io.paycallback.console.ConsoleGuard;
import io.paycallback.console.ConsoleSessions;
import io.paycallback.lease.Lanes;
import io.paycallback.lease.LeaseConfig;
import io.paycallback.lease.LeaseProcessor;
import io.paycallback.lease.LeaseStatements;
import io.paycallback.lease.LeasedTable;
import io.paycallback.lease.Scanner;
import io.paycallback.lease.Worker;
import io.paycallback.ops.Attention;
import io.paycallback.ops.AuditAction;
import io.paycallback.ops.AuditLog;
import io.paycallback.outbox.Outbox;
import io.paycallback.testsupport.Api;
import io.paycallback.testsupport.Db;
import io.paycallback.testsupport.Ids;
import io.paycallback.testsupport.ManagementPort;
import io.paycallback.testsupport.ProviderKeys;
import io.paycallback.testsupport.ProviderSigner;
import io.paycallback.testsupport.Send;
import io.paycallback.testsupport.SettableClock;
import io.paycallback.trend.TrendRecorder;
import io.paycallback.trend.Trends;
import io.quarkus.test.junit.QuarkusMock;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Destinations as a downstream team and an operator meet them, against {@link FakeDestinations} with the production
 * schedule and breaker, on a clock the test moves: signed deliveries that verify, a destination that never answers
 * beside one that does, 410 Gone, 429 with Retry-After, a destination failing for a while (its circuit opens, a probe
 * closes it), one open past disable-after, and the operator actions. The scheduler is off: the test runs the scanner
 * and the circuits' tick itself, and moves due times and probe times in the database. The clock only moves forward,
 * like a real one, and by less than the receivers' five minutes of tolerance over the whole suite.
 */
@QuarkusTest
@TestProfile(DestinationsTest.Production.class)
class DestinationsTest {

    private static final Duration WAIT = Duration.ofSeconds(20);

    public static class Production implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("paycallback.downstream.breaker.min-tries", "10",
                    "paycallback.downstream.retry.backoff", "5s,5m,30m,2h,5h,10h,10h");
        }

        @Override
        public Set<Class<?>> getEnabledAlternatives() {
            return Set.of(SettableClock.Producer.class);
        }

        @Override
        public List<TestResourceEntry> testResources() {
            return List.of(new TestResourceEntry(FakeDestinations.class));
        }
    }

    @Inject
    Pool pool;
    @Inject
    Scanner scanner;
    @Inject
    DestinationWatch watch;
    @Inject
    DestinationControls operations;
    @Inject
    AuditLog auditLog;
    @Inject
    TrendRecorder trendRecorder;
    @Inject
    Trends trends;
    @Inject
    SettableClock.Producer clocks;
    @Inject
    LeaseProcessor processor;
    @Inject
    LeaseStatements leases;
    @Inject
    LeaseConfig config;

    private Db db;
    private ProviderSigner signer;
    private final FakeDestinationsClient fake = new FakeDestinationsClient();

    @BeforeEach
    void setUp() {
        db = new Db(pool);
        signer = new ProviderSigner(ProviderKeys.fromConfig());
        fake.reset();
        db.update("UPDATE destination_circuits SET state = 0, since = NOW(3), next_probe_at = NULL, probe_until = NULL,"
                + " reason = NULL, updated_at = NOW(3)");
        watch.tick();
    }

    // ---- helpers ---------------------------------------------------------------------------------------------------

    /** Pays a new order and returns its payment's source ({@code pay:<id>}) once its events are written. */
    private String paidOrder() {
        String outTradeNo = Ids.unique("ORD");
        Api.createOrder(outTradeNo, "1.00", "CNY").then().statusCode(201);
        String transactionId = Ids.unique("42000");
        Send.payment(signer.wxPayment(outTradeNo, transactionId, 100, "SUCCESS", Instant.now())).then().statusCode(200);
        long payId = db.first("SELECT id FROM pay_callback_log WHERE channel_trade_no = ?", transactionId).getLong("id");
        await().atMost(WAIT).until(() -> db.count("SELECT COUNT(*) FROM outbox WHERE source = ?", "pay:" + payId) > 0);
        return "pay:" + payId;
    }

    private static String key(String source, String destination) {
        return source + ":order.paid:" + destination;
    }

    private Row event(String source, String destination) {
        return db.first("SELECT id, status, retry_count, next_retry_at, lease_token, last_error,"
                + " TIMESTAMPDIFF(MICROSECOND, updated_at, next_retry_at) AS delay_micros FROM outbox"
                + " WHERE source = ? AND type = 'order.paid' AND destination = ?", source, destination);
    }

    private void awaitEvent(String source, String destination, String condition) {
        await().atMost(WAIT).until(() -> db.count("SELECT COUNT(*) FROM outbox WHERE source = ? AND type = 'order.paid'"
                + " AND destination = ? AND " + condition, source, destination) == 1);
    }

    /** Events of the destination written due a second ago, the way the scanner finds them; returns their sources. */
    private List<String> due(String destination, int count) {
        List<String> sources = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            String source = Ids.unique("due");
            db.update("INSERT INTO outbox (source, type, destination, merchant_id, out_trade_no, payload, status,"
                    + " retry_count, next_retry_at, created_at, updated_at) VALUES (?, 'order.paid', ?, 'default', ?,"
                    + " '{\"type\":\"order.paid\"}', 0, 0, DATE_SUB(NOW(3), INTERVAL 1 SECOND), NOW(3), NOW(3))",
                    source, destination, "ORD-" + source);
            sources.add(source);
        }
        return sources;
    }

    private int circuitState(String destination) {
        return db.first("SELECT state FROM destination_circuits WHERE destination = ?", destination).getInteger("state");
    }

    private void probeDue(String destination) {
        db.update("UPDATE destination_circuits SET next_probe_at = DATE_SUB(NOW(3), INTERVAL 1 SECOND)"
                + " WHERE destination = ?", destination);
    }

    private static boolean parked(Row event) {
        return Outbox.PARKED.equals(event.getString("lease_token"));
    }

    private long answered2xx(String key) {
        return fake.received().stream().filter(r -> r.idempotencyKey().equals(key) && r.answered().startsWith("2")).count();
    }

    private static double metric(String series) {
        String metrics = given().port(ManagementPort.get()).get("/q/metrics").then().statusCode(200).extract().asString();
        return metrics.lines().filter(line -> line.startsWith(series + " "))
                .mapToDouble(line -> Double.parseDouble(line.substring(series.length() + 1).trim()))
                .findFirst().orElseThrow(() -> new AssertionError("no series " + series));
    }

    /** The operations layer's audit entry of an action on a destination, as its actions bind it. */
    private AuditLog.Entry audited(AuditAction action, String destination) {
        return auditLog.entry("destinations-test", action, "destination=" + destination);
    }

    private Row audit(long entry) {
        return db.first("SELECT action, target, row_count FROM audit_log WHERE id = ?", entry);
    }

    // ---- signing ---------------------------------------------------------------------------------------------------

    @Test
    void everyDeliveryIsSignedWithEachValidSecretAndKeepsItsWebhookIdAcrossTries() {
        fake.answer("hooks", 503);
        String source = paidOrder();
        awaitEvent(source, "gone", "status = 1");
        awaitEvent(source, "hooks", "retry_count = 1");

        FakeDestinationsClient.Received first = fake.received("hooks", source + ":").get(0);
        assertThat(first.idempotencyKey()).isEqualTo(key(source, "hooks"));
        assertThat(first.webhookId()).isEqualTo(WebhookSigner.webhookId(key(source, "hooks")));
        assertThat(first.signatures()).isEqualTo(2);
        assertThat(first.verifiedWith()).as("the current and the previous secret each verify it").isEqualTo("0,1");
        assertThat(Long.parseLong(first.timestamp())).as("the try's time on the service's clock")
                .isCloseTo(clocks.clock().instant().getEpochSecond(), org.assertj.core.data.Offset.offset(10L));

        awaitEvent(source, "slow", "status = 1");
        FakeDestinationsClient.Received gone = fake.received("gone", source + ":").get(0);
        assertThat(gone.signatures()).isEqualTo(1);
        assertThat(gone.verifiedWith()).isEqualTo("0");
        FakeDestinationsClient.Received unsigned = fake.received("slow", source + ":").get(0);
        assertThat(unsigned.signatures()).isZero();
        assertThat(unsigned.webhookId()).isEqualTo("null");

        // The next try, 90 s later on the service's clock: the same id, its own time, still verifying.
        fake.answer("hooks", 200);
        clocks.clock().advance(Duration.ofSeconds(90));
        db.update("UPDATE outbox SET next_retry_at = DATE_SUB(NOW(3), INTERVAL 1 SECOND) WHERE id = ?",
                event(source, "hooks").getLong("id"));
        scanner.drain(Outbox.TABLE);

        assertThat(event(source, "hooks").getInteger("status")).isEqualTo(1);
        List<FakeDestinationsClient.Received> tries = fake.received("hooks", source + ":");
        assertThat(tries).hasSize(2);
        assertThat(tries.get(1).webhookId()).isEqualTo(first.webhookId());
        assertThat(Long.parseLong(tries.get(1).timestamp()) - Long.parseLong(first.timestamp())).isBetween(89L, 100L);
        assertThat(tries.get(1).verifiedWith()).isEqualTo("0,1");
    }

    // ---- isolation -------------------------------------------------------------------------------------------------

    @Test
    void aDestinationThatNeverAnswersDelaysNoEventOfAnother() {
        fake.silent("dead");
        List<String> dead = new ArrayList<>();
        List<String> hooks = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            dead.addAll(due("dead", 1));
            hooks.addAll(due("hooks", 1));
        }
        Instant started = Instant.now();
        CompletableFuture<Integer> drained = CompletableFuture.supplyAsync(() -> scanner.drain(Outbox.TABLE));

        await().atMost(WAIT).until(() -> hooks.stream().allMatch(source -> event(source, "hooks").getInteger("status") == 1));
        Duration hooksDone = Duration.between(started, Instant.now());
        assertThat(hooksDone).as("the answering destination's events, done while the other's requests wait for their"
                + " 3 s timeout").isLessThan(Duration.ofMillis(2_500));
        assertThat(drained).as("the scan still waits for the silent destination").isNotDone();

        drained.join();
        assertThat(dead).allSatisfy(source -> {
            Row row = event(source, "dead");
            assertThat(row.getInteger("retry_count")).isEqualTo(1);
            assertThat(row.getString("last_error")).containsIgnoringCase("timeout");
        });
    }

    /**
     * A lane leases its next events itself once half drained. When that lease fails (a deadlock lost to another lane's
     * lease of the same index range, every time it was tried), the lane must ask again by itself: emptied, it has no
     * answer left to wake it, and without it the rest of its backlog waited for the next scan.
     */
    @Test
    void aLaneWhoseOwnLeaseFailsAsksAgainWithoutWaitingForTheNextScan() throws InterruptedException {
        AtomicInteger refused = new AtomicInteger();
        AtomicLong refusedUntil = new AtomicLong(Long.MAX_VALUE);
        // Every lease of its own fails for a second from the first: the lane sends all it holds meanwhile and empties.
        Worker failingRefills = new Worker(processor, leases, config) {
            @Override
            public CompletableFuture<Integer> refill(LeasedTable table, Lanes lanes, String lane, int limit) {
                if (lane.equals("hooks")) {
                    refusedUntil.compareAndSet(Long.MAX_VALUE, System.nanoTime() + Duration.ofSeconds(1).toNanos());
                    if (System.nanoTime() - refusedUntil.get() < 0) {
                        refused.incrementAndGet();
                        return CompletableFuture.failedFuture(new IllegalStateException("the lease lost its race"));
                    }
                }
                return super.refill(table, lanes, lane, limit);
            }
        };
        QuarkusMock.installMockForType(failingRefills, Worker.class);
        try {
            // More than a lane holds (its concurrency of 8 times 32): the scan leases the lane's room, the rest is the
            // lane's own to lease.
            List<String> sources = due("hooks", 300);
            String among = String.join(", ", Collections.nCopies(sources.size(), "?"));
            scanner.drain(Outbox.TABLE);

            await().atMost(WAIT).until(() -> db.count("SELECT COUNT(*) FROM outbox WHERE destination = 'hooks'"
                    + " AND status = 1 AND source IN (" + among + ")", sources.toArray()) == sources.size());
            assertThat(refused).as("the lane's own leases that failed").hasPositiveValue();
        } finally {
            failingRefills.stop();
        }
    }

    @Test
    void aLaneThatFoundNothingTakesTheBacklogAScanHandsItWithoutWaitingForTheNextScan() {
        // Nothing of the lane's is due, so each refill below finds nothing and doubles the lane's quiet wait.
        db.update("UPDATE outbox SET status = 1, lease_token = NULL WHERE destination = 'hooks' AND status = 0");
        for (int i = 0; i < 8; i++) {
            clocks.clock().advance(Duration.ofSeconds(6));
            String source = due("hooks", 1).get(0);
            scanner.drain(Outbox.TABLE);
            assertThat(event(source, "hooks").getInteger("status")).isEqualTo(1);
        }

        // Within that wait a backlog arrives, more than the lane holds: the scan leases the lane's room, the rest is the
        // lane's own to lease, and no scan follows here.
        List<String> sources = due("hooks", 300);
        String among = String.join(", ", Collections.nCopies(sources.size(), "?"));
        scanner.drain(Outbox.TABLE);

        await().atMost(WAIT).until(() -> db.count("SELECT COUNT(*) FROM outbox WHERE destination = 'hooks'"
                + " AND status = 1 AND source IN (" + among + ")", sources.toArray()) == sources.size());
    }

    @Test
    void aRateLimitedDestinationGetsNoMoreThanItsEventsPerSecond() {
        List<String> sources = due("limited", 6);
        scanner.drain(Outbox.TABLE);

        assertThat(sources).allSatisfy(source -> assertThat(event(source, "limited").getInteger("status")).isEqualTo(1));
        List<Long> arrived = fake.received().stream().filter(r -> r.destination().equals("limited"))
                .map(FakeDestinationsClient.Received::arrivedMillis).sorted().toList();
        assertThat(arrived).hasSize(6);
        // Two per one-second refill of the limiter: any five of them span at least three refills.
        for (int i = 4; i < arrived.size(); i++) {
            assertThat(arrived.get(i) - arrived.get(i - 4)).as("five events within one second").isGreaterThanOrEqualTo(990L);
        }
    }

    // ---- 410, 429 --------------------------------------------------------------------------------------------------

    @Test
    void a410DisablesTheDestinationWithAnAlertItsEventsWaitAndAnOperatorEnablesIt() {
        fake.answer("gone", 410);
        String first = paidOrder();
        await().atMost(WAIT).until(() -> circuitState("gone") == 3);
        awaitEvent(first, "gone", "lease_token = 'parked'");

        Row parkedEvent = event(first, "gone");
        assertThat(parkedEvent.getInteger("status")).isZero();
        assertThat(parkedEvent.getInteger("retry_count")).as("a 410 spends no try").isZero();
        assertThat(parkedEvent.getString("lease_token")).isEqualTo(Outbox.PARKED);
        assertThat(db.first("SELECT result, http_status FROM delivery_attempts WHERE outbox_id = ?",
                parkedEvent.getLong("id")).getInteger("http_status")).isEqualTo(410);
        assertThat(db.rows("SELECT destination FROM outbox WHERE type = 'alert' AND source LIKE 'destination:gone:disabled:%'")
                .stream().map(row -> row.getString("destination")).toList()).contains("hooks").doesNotContain("gone");
        assertThat(db.first("SELECT reason FROM destination_circuits WHERE destination = 'gone'").getString("reason"))
                .contains("410");

        // New events wait from the start, without a request; a disabled destination gets no probe.
        String second = paidOrder();
        awaitEvent(second, "gone", "lease_token = 'parked'");
        probeDue("gone");
        watch.tick();
        assertThat(fake.received("gone", second + ":")).isEmpty();
        assertThat(operations.list().await().indefinitely()).filteredOn(view -> view.name().equals("gone"))
                .singleElement().satisfies(view -> {
                    assertThat(view.state()).isEqualTo(DestinationState.DISABLED);
                    assertThat(view.parked()).isGreaterThanOrEqualTo(2);
                    assertThat(view.signed()).isTrue();
                });

        fake.answer("gone", 200);
        DestinationResults.Change enabled = operations.enable("gone", audited(AuditAction.DESTINATION_ENABLE, "gone")).await().indefinitely();
        assertThat(enabled).isInstanceOf(DestinationResults.Change.Changed.class);
        long entry = ((DestinationResults.Change.Changed) enabled).auditEntry();
        assertThat(audit(entry).getString("action")).isEqualTo("destination_enable");
        assertThat(audit(entry).getString("target")).isEqualTo("destination=gone");
        assertThat(circuitState("gone")).isZero();
        assertThat(operations.enable("gone", audited(AuditAction.DESTINATION_ENABLE, "gone")).await().indefinitely())
                .isInstanceOf(DestinationResults.Change.Unchanged.class);

        scanner.drain(Outbox.TABLE);
        assertThat(event(first, "gone").getInteger("status")).isEqualTo(1);
        assertThat(event(second, "gone").getInteger("status")).isEqualTo(1);
        assertThat(answered2xx(key(first, "gone"))).isEqualTo(1);
        assertThat(answered2xx(key(second, "gone"))).isEqualTo(1);
    }

    @Test
    void aRetryAfterPushesTheNextTryAndPausesTheDestinationOnTheServicesClock() {
        fake.answer("slow", 429, "60");
        String first = paidOrder();
        awaitEvent(first, "slow", "retry_count = 1");
        Row throttled = event(first, "slow");
        assertThat(throttled.getLong("delay_micros")).as("Retry-After 60 s, over the schedule's 5 s")
                .isBetween(59_000_000L, 61_000_000L);
        assertThat(throttled.getString("last_error")).contains("429");

        // While paused, the destination's next event is given back for after the pause, unsent and uncounted.
        String second = paidOrder();
        awaitEvent(second, "slow", "lease_token IS NULL");
        Row held = event(second, "slow");
        assertThat(held.getInteger("retry_count")).isZero();
        assertThat(held.getLong("delay_micros")).isBetween(40_000_000L, 61_000_000L);
        assertThat(fake.received("slow", second + ":")).isEmpty();

        // The pause over on the service's clock, an HTTP-date Retry-After 30 s ahead of it.
        clocks.clock().advance(Duration.ofSeconds(61));
        String at = DateTimeFormatter.RFC_1123_DATE_TIME.format(clocks.clock().instant().plusSeconds(30).atZone(ZoneOffset.UTC));
        fake.answer("slow", 503, at);
        db.update("UPDATE outbox SET next_retry_at = DATE_SUB(NOW(3), INTERVAL 1 SECOND) WHERE id = ?", held.getLong("id"));
        scanner.drain(Outbox.TABLE);
        Row dated = event(second, "slow");
        assertThat(dated.getInteger("retry_count")).isEqualTo(1);
        assertThat(dated.getLong("delay_micros")).isBetween(25_000_000L, 31_000_000L);

        clocks.clock().advance(Duration.ofSeconds(31));
        fake.answer("slow", 200);
        db.update("UPDATE outbox SET next_retry_at = DATE_SUB(NOW(3), INTERVAL 1 SECOND) WHERE id IN (?, ?)",
                throttled.getLong("id"), held.getLong("id"));
        scanner.drain(Outbox.TABLE);
        assertThat(event(first, "slow").getInteger("status")).isEqualTo(1);
        assertThat(event(second, "slow").getInteger("status")).isEqualTo(1);
    }

    // ---- the circuit -----------------------------------------------------------------------------------------------

    @Test
    void aDestinationFailingForAWhileOpensItsCircuitItsEventsWaitAndAProbeClosesIt() {
        double recoveries = metric("paycallback_destination_recoveries_total{destination=\"flaky\"}");
        fake.answer("flaky", 500);
        List<String> sources = due("flaky", 14);
        scanner.drain(Outbox.TABLE);

        await().atMost(WAIT).until(() -> circuitState("flaky") == 1);
        assertThat(db.first("SELECT reason FROM destination_circuits WHERE destination = 'flaky'").getString("reason"))
                .contains("tries failed within 5m").contains("500");
        int requests = fake.received().stream().filter(r -> r.destination().equals("flaky")).toList().size();
        assertThat(requests).as("tries until the circuit opened").isBetween(10, 14);

        watch.tick();
        assertThat(sources).allSatisfy(source -> {
            Row row = event(source, "flaky");
            assertThat(parked(row)).as("%s parked", source).isTrue();
            assertThat(row.getInteger("retry_count")).isLessThanOrEqualTo(1);
        });
        String fresh = paidOrder();
        awaitEvent(fresh, "flaky", "lease_token = 'parked'");
        assertThat(event(fresh, "flaky").getString("lease_token")).as("written parked, not leased").isEqualTo(Outbox.PARKED);
        watch.tick();
        assertThat(fake.received().stream().filter(r -> r.destination().equals("flaky")).count())
                .as("no request before the probe is due").isEqualTo(requests);
        assertThat(metric("paycallback_destination_state{destination=\"flaky\"}")).isEqualTo(1);

        // A due probe that fails: one request, its event parked again with its try unspent.
        probeDue("flaky");
        watch.tick();
        assertThat(fake.received().stream().filter(r -> r.destination().equals("flaky")).count()).isEqualTo(requests + 1);
        assertThat(circuitState("flaky")).isEqualTo(1);
        String oldest = sources.get(0);
        assertThat(parked(event(oldest, "flaky"))).isTrue();
        assertThat(event(oldest, "flaky").getInteger("retry_count")).isLessThanOrEqualTo(1);

        // The destination is back: the next probe is delivered, the circuit closes, everything waiting follows once.
        fake.answer("flaky", 200);
        probeDue("flaky");
        watch.tick();
        assertThat(circuitState("flaky")).isZero();
        scanner.drain(Outbox.TABLE);
        List<String> all = new ArrayList<>(sources);
        all.add(fresh);
        assertThat(all).allSatisfy(source -> {
            assertThat(event(source, "flaky").getInteger("status")).as(source).isEqualTo(1);
            assertThat(answered2xx(key(source, "flaky"))).as(source).isEqualTo(1);
        });
        assertThat(metric("paycallback_destination_state{destination=\"flaky\"}")).isZero();
        assertThat(metric("paycallback_destination_recoveries_total{destination=\"flaky\"}")).isEqualTo(recoveries + 1);
    }

    @Test
    void aCircuitStillOpenAfterDisableAfterDisablesTheDestinationWithAnAlert() {
        fake.answer("flaky", 500);
        String source = due("flaky", 1).get(0);
        db.update("UPDATE outbox SET lease_token = 'parked', next_retry_at = DATE_ADD(NOW(3), INTERVAL 1 HOUR)"
                + " WHERE source = ?", source);
        db.update("UPDATE destination_circuits SET state = 1, since = DATE_SUB(NOW(3), INTERVAL 3 DAY),"
                + " next_probe_at = DATE_SUB(NOW(3), INTERVAL 1 SECOND), reason = 'failing' WHERE destination = 'flaky'");
        watch.tick();

        assertThat(circuitState("flaky")).isEqualTo(3);
        assertThat(db.first("SELECT reason FROM destination_circuits WHERE destination = 'flaky'").getString("reason"))
                .contains("open for more than 3d").contains("500");
        assertThat(db.count("SELECT COUNT(*) FROM outbox WHERE type = 'alert' AND destination = 'hooks'"
                + " AND source LIKE 'destination:flaky:disabled:%'")).isGreaterThanOrEqualTo(1);
        Row row = event(source, "flaky");
        assertThat(parked(row)).isTrue();
        assertThat(row.getInteger("status")).as("nothing goes dead").isZero();
    }

    // ---- operator actions ------------------------------------------------------------------------------------------

    @Test
    void anOperatorDisablesProbesAndEnablesADestinationEachAudited() {
        DestinationResults.Change disabled = operations.disable("slow", audited(AuditAction.DESTINATION_DISABLE, "slow")).await().indefinitely();
        assertThat(disabled).isInstanceOf(DestinationResults.Change.Changed.class);
        assertThat(audit(((DestinationResults.Change.Changed) disabled).auditEntry()).getString("action"))
                .isEqualTo("destination_disable");
        assertThat(operations.disable("slow", audited(AuditAction.DESTINATION_DISABLE, "slow")).await().indefinitely()).isInstanceOf(DestinationResults.Change.Unchanged.class);
        assertThat(operations.disable("nowhere", audited(AuditAction.DESTINATION_DISABLE, "nowhere")).await().indefinitely()).isInstanceOf(DestinationResults.Change.Unknown.class);

        String source = paidOrder();
        awaitEvent(source, "slow", "lease_token = 'parked'");
        assertThat(fake.received("slow", source + ":")).isEmpty();

        DestinationResults.Probe probed = operations.probeNow("slow", audited(AuditAction.DESTINATION_PROBE, "slow")).await().indefinitely();
        assertThat(probed).isInstanceOf(DestinationResults.Probe.Delivered.class);
        DestinationResults.Probe.Delivered delivered = (DestinationResults.Probe.Delivered) probed;
        assertThat(delivered.httpStatus()).isEqualTo(200);
        assertThat(delivered.destination().state()).isEqualTo(DestinationState.CLOSED);
        assertThat(audit(delivered.auditEntry()).getString("action")).isEqualTo("destination_probe");
        assertThat(operations.probeNow("slow", audited(AuditAction.DESTINATION_PROBE, "slow")).await().indefinitely())
                .isInstanceOf(DestinationResults.Probe.NotNeeded.class);
        scanner.drain(Outbox.TABLE);
        assertThat(event(source, "slow").getInteger("status")).isEqualTo(1);
        assertThat(answered2xx(key(source, "slow"))).isEqualTo(1);
    }

    @Test
    void aDeliveredEventCountsTheTimeSinceItsWritingForTheCharts() {
        trendRecorder.flushBefore(trendRecorder.minute() + 2).await().indefinitely();
        db.update("DELETE FROM trend_minutes WHERE series = 'delivery_latency'");
        // An event of hooks alone: the other destinations' failure windows, which other tests count on, stay as they are.
        String source = due("hooks", 1).get(0);
        scanner.drain(Outbox.TABLE);
        awaitEvent(source, "hooks", "status = 1");

        trendRecorder.flushBefore(trendRecorder.minute() + 2).await().indefinitely();

        List<Trends.Line> lines = trends.read(Trends.Window.HOUR).await().indefinitely().charts().stream()
                .filter(chart -> chart.title().startsWith("Time from callback to delivered")).findFirst().orElseThrow()
                .lines();
        assertThat(lines).extracting(Trends.Line::label).contains("hooks p50", "hooks p99");
        assertThat(lines).filteredOn(line -> line.label().equals("hooks p99")).singleElement()
                .satisfies(line -> assertThat(line.values().get(line.values().size() - 1)).isPositive());
    }

    @Test
    void theOverviewSaysADisabledDestinationNeedsAPersonWithItsWaitingEvents() {
        operations.disable("slow", audited(AuditAction.DESTINATION_DISABLE, "slow")).await().indefinitely();
        try {
            String source = paidOrder();
            awaitEvent(source, "slow", "lease_token = 'parked'");

            var overview = Api.as(Api.ALICE_TOKEN).get("/admin/overview").then().statusCode(200).extract().jsonPath();
            List<Map<String, Object>> attention = overview.getList("attention");
            assertThat(attention).filteredOn(item -> "slow".equals(item.get("subject"))).singleElement()
                    .satisfies(item -> {
                        assertThat(item.get("concern")).isEqualTo("destination-disabled");
                        assertThat(((Number) item.get("count")).longValue()).isGreaterThanOrEqualTo(1);
                        assertThat((String) item.get("said")).startsWith("destination slow is disabled (disabled by an"
                                + " operator): ").contains(" waiting, the oldest since ");
                    });
            assertThat(attention).extracting(item -> item.get("concern")).as("most urgent first")
                    .isSortedAccordingTo(Comparator.comparingInt(concern -> Attention.Concern.valueOf(
                            ((String) concern).toUpperCase(Locale.ROOT).replace('-', '_')).ordinal()));
        } finally {
            operations.enable("slow", audited(AuditAction.DESTINATION_ENABLE, "slow")).await().indefinitely();
        }
    }

    @Test
    void aReplaySendsADestinationsEventsAgainAndAddsThoseWrittenBeforeItSubscribed() {
        LocalDateTime since = db.first("SELECT NOW(3) AS now").getLocalDateTime("now");
        String delivered = paidOrder();
        awaitEvent(delivered, "hooks", "status = 1");
        // An event written before hooks subscribed: a row for another destination only.
        String before = Ids.unique("before");
        db.update("INSERT INTO outbox (source, type, destination, merchant_id, out_trade_no, payload, status, retry_count,"
                + " next_retry_at, created_at, updated_at) VALUES (?, 'order.paid', 'sink', 'default', 'ORD-BEFORE',"
                + " '{\"type\":\"order.paid\"}', 1, 0, NOW(3), NOW(3), NOW(3))", before);

        DestinationResults.ReplayPreview preview = operations.previewReplay("hooks", since).await().indefinitely();
        assertThat(preview).isInstanceOf(DestinationResults.ReplayPreview.Planned.class);
        DestinationResults.ReplayPlan plan = ((DestinationResults.ReplayPreview.Planned) preview).plan();
        assertThat(plan.resent()).isGreaterThanOrEqualTo(1);
        assertThat(plan.added()).isGreaterThanOrEqualTo(1);
        String later = Ids.unique("later");
        db.update("INSERT INTO outbox (source, type, destination, merchant_id, out_trade_no, payload, status, retry_count,"
                + " next_retry_at, created_at, updated_at) VALUES (?, 'order.paid', 'sink', 'default', 'ORD-LATER',"
                + " '{\"type\":\"order.paid\"}', 1, 0, NOW(3), NOW(3), NOW(3))", later);

        DestinationResults.Replay replay = operations.replay(plan, audited(AuditAction.DESTINATION_REPLAY, plan.destination())).await().indefinitely();
        assertThat(replay).isInstanceOf(DestinationResults.Replay.Replayed.class);
        DestinationResults.Replay.Replayed replayed = (DestinationResults.Replay.Replayed) replay;
        assertThat(replayed.resent()).isEqualTo(plan.resent());
        assertThat(replayed.added()).isEqualTo(plan.added());
        assertThat(audit(replayed.auditEntry()).getLong("row_count")).isEqualTo(plan.resent() + plan.added());
        assertThat(audit(replayed.auditEntry()).getString("action")).isEqualTo("destination_replay");
        assertThat(db.count("SELECT COUNT(*) FROM outbox WHERE source = ? AND destination = 'hooks'", later))
                .as("written after the dry run: not swept in").isZero();

        scanner.drain(Outbox.TABLE);
        assertThat(answered2xx(key(delivered, "hooks"))).isEqualTo(2);
        assertThat(answered2xx(key(before, "hooks"))).isEqualTo(1);
        List<FakeDestinationsClient.Received> both = fake.received("hooks", delivered + ":");
        assertThat(both).extracting(FakeDestinationsClient.Received::webhookId).containsOnly(both.get(0).webhookId());
        long eventId = event(delivered, "hooks").getLong("id");
        assertThat(Api.authorized().get("/admin/outbox/" + eventId + "/attempts").then().statusCode(200).extract()
                .jsonPath().getList("result", String.class)).as("the first delivered try is kept").containsExactly("delivered", "delivered");
    }

    @Test
    void theAdminApiAndTheConsoleOfferEachDestinationActionUnderTheCallersName() {
        List<String> names = Api.as(Api.ALICE_TOKEN).get("/admin/destinations").then().statusCode(200).extract().jsonPath()
                .getList("name", String.class);
        assertThat(names).containsAll(FakeDestinations.NAMES);
        Api.as(Api.ALICE_TOKEN).get("/admin/destinations/nowhere").then().statusCode(404);
        Api.as(Api.ALICE_TOKEN).post("/admin/destinations/nowhere/disable").then().statusCode(404);

        Api.as(Api.ALICE_TOKEN).post("/admin/destinations/limited/disable").then().statusCode(200)
                .body("state", org.hamcrest.Matchers.equalTo("disabled"));
        assertThat(circuitState("limited")).isEqualTo(3);
        assertThat(db.count("SELECT COUNT(*) FROM audit_log WHERE actor = 'alice' AND action = 'destination_disable'"
                + " AND target = 'destination=limited'")).isEqualTo(1);
        assertThat(Api.as(Api.ALICE_TOKEN).get("/admin/audit").then().statusCode(200).extract().jsonPath()
                .getList("action", String.class)).contains("destination_disable");
        Api.as(Api.ALICE_TOKEN).post("/admin/destinations/limited/enable").then().statusCode(200)
                .body("state", org.hamcrest.Matchers.equalTo("closed"));
        Api.as(Api.ALICE_TOKEN).post("/admin/destinations/limited/probe").then().statusCode(409)
                .body("error", org.hamcrest.Matchers.containsString("nothing to probe"));

        String since = db.first("SELECT NOW(3) AS now").getLocalDateTime("now").toString();
        String delivered = paidOrder();
        awaitEvent(delivered, "hooks", "status = 1");
        Api.as(Api.ALICE_TOKEN).contentType("application/json").body(Map.of("since", "yesterday"))
                .post("/admin/destinations/hooks/replay").then().statusCode(400)
                .body("error", org.hamcrest.Matchers.containsString("since"));
        Api.as(Api.ALICE_TOKEN).contentType("application/json").body(Map.of("since", since, "dryRun", false))
                .post("/admin/destinations/hooks/replay").then().statusCode(400)
                .body("error", org.hamcrest.Matchers.containsString("upToId"));
        long upToId = Api.as(Api.ALICE_TOKEN).contentType("application/json").body(Map.of("since", since))
                .post("/admin/destinations/hooks/replay").then().statusCode(200)
                .body("resent", org.hamcrest.Matchers.greaterThanOrEqualTo(1)).extract().jsonPath().getLong("upToId");
        Api.as(Api.ALICE_TOKEN).contentType("application/json")
                .body(Map.of("since", since, "upToId", upToId, "dryRun", false))
                .post("/admin/destinations/hooks/replay").then().statusCode(202)
                .body("resent", org.hamcrest.Matchers.greaterThanOrEqualTo(1));
        assertThat(db.count("SELECT COUNT(*) FROM audit_log WHERE actor = 'alice' AND action = 'destination_replay'"))
                .isGreaterThanOrEqualTo(1);
        scanner.drain(Outbox.TABLE);
        assertThat(answered2xx(key(delivered, "hooks"))).isEqualTo(2);

        // The console: the same actions behind a session and its CSRF token.
        String cookie = given().redirects().follow(false).formParam("token", Api.BOB_TOKEN).post("/admin/console/login")
                .then().statusCode(303).extract().cookie(ConsoleSessions.COOKIE);
        String page = given().cookie(ConsoleSessions.COOKIE, cookie).get("/admin/console/destinations").then()
                .statusCode(200).extract().asString();
        assertThat(page).contains("<strong>limited</strong>").contains("/to/dead").doesNotContain(FakeDestinations.HOOKS_SECRET);
        java.util.regex.Matcher csrf = java.util.regex.Pattern.compile("\"X-Console-Csrf\": \"([^\"]+)\"").matcher(page);
        assertThat(csrf.find()).isTrue();
        given().cookie(ConsoleSessions.COOKIE, cookie).post("/admin/console/destinations/limited/disable").then()
                .statusCode(403);
        given().cookie(ConsoleSessions.COOKIE, cookie).header(ConsoleGuard.CSRF_HEADER, csrf.group(1))
                .post("/admin/console/destinations/limited/disable").then().statusCode(200)
                .body(org.hamcrest.Matchers.containsString("limited disabled"));
        given().cookie(ConsoleSessions.COOKIE, cookie).header(ConsoleGuard.CSRF_HEADER, csrf.group(1))
                .post("/admin/console/destinations/limited/enable").then().statusCode(200)
                .body(org.hamcrest.Matchers.containsString("limited enabled"));
        assertThat(db.count("SELECT COUNT(*) FROM audit_log WHERE actor = 'bob' AND target = 'destination=limited'"
                + " AND action IN ('destination_disable', 'destination_enable')")).isEqualTo(2);
        String plan = given().cookie(ConsoleSessions.COOKIE, cookie).header(ConsoleGuard.CSRF_HEADER, csrf.group(1))
                .formParam("destination", "hooks").formParam("since", since)
                .post("/admin/console/destinations/replay/dry-run").then().statusCode(200).extract().asString();
        assertThat(plan).contains("Replay these").contains("name=\"upToId\"");
        java.util.regex.Matcher planned = java.util.regex.Pattern.compile("name=\"upToId\" value=\"(\\d+)\"").matcher(plan);
        assertThat(planned.find()).isTrue();
        given().cookie(ConsoleSessions.COOKIE, cookie).header(ConsoleGuard.CSRF_HEADER, csrf.group(1))
                .formParam("destination", "hooks").formParam("since", since).formParam("upToId", planned.group(1))
                .post("/admin/console/destinations/replay/apply").then().statusCode(200)
                .body(org.hamcrest.Matchers.containsString("pending again"));
        given().cookie(ConsoleSessions.COOKIE, cookie).header(ConsoleGuard.CSRF_HEADER, csrf.group(1))
                .formParam("destination", "hooks").formParam("since", "not a time")
                .post("/admin/console/destinations/replay/dry-run").then().statusCode(200)
                .body(org.hamcrest.Matchers.containsString("since is a date and time"));
        scanner.drain(Outbox.TABLE);
        assertThat(answered2xx(key(delivered, "hooks"))).isEqualTo(3);
    }

    @Test
    void aParkedEventIsHeldLikeALeaseAndPushedOnWhileItsCircuitStaysOpen() {
        fake.answer("dead", 500);
        db.update("UPDATE destination_circuits SET state = 1, since = NOW(3), next_probe_at = DATE_ADD(NOW(3), INTERVAL 1 HOUR),"
                + " reason = 'failing' WHERE destination = 'dead'");
        String source = due("dead", 1).get(0);
        watch.tick();
        assertParkedForAnHour(source);

        // Nearing its time while the circuit is still open: the next sweep pushes it on.
        db.update("UPDATE outbox SET next_retry_at = DATE_ADD(NOW(3), INTERVAL 10 MINUTE) WHERE source = ?", source);
        watch.tick();
        assertParkedForAnHour(source);

        // Its time passed with nobody to push it on (a release without circuits, after a rollback): an expired lease,
        // which a scan takes over like any other. This release parks it again, its try unspent, and sends nothing.
        db.update("UPDATE outbox SET next_retry_at = DATE_SUB(NOW(3), INTERVAL 1 SECOND) WHERE source = ?", source);
        scanner.drain(Outbox.TABLE);
        assertParkedForAnHour(source);
        assertThat(fake.received("dead", source + ":")).isEmpty();
    }

    private void assertParkedForAnHour(String source) {
        Row row = db.first("SELECT lease_token, retry_count, status, TIMESTAMPDIFF(SECOND, NOW(3), next_retry_at) AS ahead"
                + " FROM outbox WHERE source = ?", source);
        assertThat(row.getString("lease_token")).isEqualTo(Outbox.PARKED);
        assertThat(row.getLong("ahead")).as("seconds until its parking ends").isBetween(3500L, 3600L);
        assertThat(row.getInteger("retry_count")).isZero();
        assertThat(row.getInteger("status")).isZero();
    }

    @Test
    void theReadModelAndTheGaugesShowEachDestinationsBacklog() {
        fake.answer("dead", 500);
        db.update("UPDATE destination_circuits SET state = 1, since = NOW(3), next_probe_at = DATE_ADD(NOW(3), INTERVAL 1 HOUR),"
                + " reason = 'failing' WHERE destination = 'dead'");
        List<String> waiting = due("dead", 3);
        watch.tick();
        watch.recount();

        DestinationView dead = operations.get("dead").await().indefinitely().orElseThrow();
        assertThat(dead.state()).isEqualTo(DestinationState.OPEN);
        assertThat(dead.reason()).isEqualTo("failing");
        assertThat(dead.nextProbeAt()).isNotNull();
        assertThat(dead.backlog()).isGreaterThanOrEqualTo(3);
        assertThat(dead.parked()).isGreaterThanOrEqualTo(3);
        assertThat(dead.oldestPendingAt()).isNotNull();
        assertThat(dead.signed()).isFalse();
        assertThat(dead.endpoint()).startsWith("http://127.0.0.1:").endsWith("/to/dead");
        assertThat(metric("paycallback_destination_backlog{destination=\"dead\"}")).isGreaterThanOrEqualTo(3);
        assertThat(metric("paycallback_destination_state{destination=\"dead\"}")).isEqualTo(1);
        assertThat(operations.get("nowhere").await().indefinitely()).isEmpty();
        DestinationView hooks = operations.get("hooks").await().indefinitely().orElseThrow();
        assertThat(hooks.previousSecretUntil()).isEqualTo(Instant.parse("2099-01-01T00:00:00Z"));
        assertThat(hooks.toString()).doesNotContain(FakeDestinations.HOOKS_SECRET.substring(6))
                .doesNotContain(FakeDestinations.HOOKS_PREVIOUS_SECRET.substring(6));
        assertThat(waiting).allSatisfy(source -> assertThat(parked(event(source, "dead"))).isTrue());
    }
}
