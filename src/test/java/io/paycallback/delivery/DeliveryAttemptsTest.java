package io.paycallback.delivery;

import io.paycallback.lease.RowLease;
import io.paycallback.lease.LeasedRow;
import io.paycallback.lease.Scanner;
import io.paycallback.lease.Tried;
import io.paycallback.housekeeping.Housekeeping;
import io.paycallback.outbox.Outbox;
import io.paycallback.testsupport.Api;
import io.paycallback.testsupport.Db;
import io.paycallback.testsupport.EventSink;
import io.paycallback.testsupport.Ids;
import io.paycallback.testsupport.ManagementPort;
import io.paycallback.testsupport.ProviderKeys;
import io.paycallback.testsupport.ProviderSigner;
import io.paycallback.testsupport.Send;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.inject.Inject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

@QuarkusTest
class DeliveryAttemptsTest {

    private static final Duration WAIT = Duration.ofSeconds(20);

    @Inject
    Pool pool;
    @Inject
    Scanner scanner;
    @Inject
    Housekeeping housekeeping;
    @Inject
    OutboxRelay relay;

    private Db db;
    private ProviderSigner signer;
    private final EventSink sink = new EventSink();

    @BeforeEach
    void setUp() {
        db = new Db(pool);
        signer = new ProviderSigner(ProviderKeys.fromConfig());
        sink.reset();
    }

    @AfterEach
    void sinkBackToNormal() {
        sink.reset();
    }

    /** Pays a new order and returns its order.paid event's outbox id once the payment is done. */
    private long paidEvent() {
        String outTradeNo = Ids.unique("ORD");
        Api.createOrder(outTradeNo, "3.00", "CNY").then().statusCode(201);
        String transactionId = Ids.unique("42000");
        Send.payment(signer.wxPayment(outTradeNo, transactionId, 300, "SUCCESS", Instant.now())).then().statusCode(200);
        long payId = db.first("SELECT id FROM pay_callback_log WHERE channel_trade_no = ?", transactionId).getLong("id");
        await().atMost(WAIT).until(() -> db.first("SELECT status FROM pay_callback_log WHERE id = ?", payId)
                .getInteger("status") == 1);
        return db.first("SELECT id FROM outbox WHERE source = ? AND type = 'order.paid'", "pay:" + payId).getLong("id");
    }

    private void awaitFailures(long eventId, int failures) {
        await().atMost(WAIT).until(() -> db.first("SELECT retry_count FROM outbox WHERE id = ?", eventId)
                .getInteger("retry_count") >= failures);
    }

    private void tryAgainNow(long eventId) {
        db.update("UPDATE outbox SET next_retry_at = DATE_SUB(NOW(3), INTERVAL 1 SECOND) WHERE id = ?", eventId);
        scanner.drain(Outbox.TABLE);
    }

    private static JsonPath attempts(long eventId) {
        return Api.authorized().get("/admin/outbox/" + eventId + "/attempts").then().statusCode(200).extract().jsonPath();
    }

    private static double counter(String series) {
        String metrics = given().port(ManagementPort.get()).get("/q/metrics").then().statusCode(200).extract().asString();
        return metrics.lines().filter(line -> line.startsWith(series + " "))
                .mapToDouble(line -> Double.parseDouble(line.substring(series.length() + 1).trim()))
                .findFirst().orElseThrow(() -> new AssertionError("no series " + series));
    }

    @Test
    void aDeliveryThatFailsTwiceThenSucceedsShowsThreeAttempts() throws Exception {
        String marker = Ids.unique("BODYMARK");
        // One ASCII byte, then two-byte characters: byte 512 falls inside a character, which must be left out whole.
        String body = marker.substring(0, 1) + "é".repeat(1000) + marker;
        String refused = "paycallback_outbox_deliveries_total{destination=\"sink\",result=\"refused\"}";
        String delivered = "paycallback_outbox_deliveries_total{destination=\"sink\",result=\"delivered\"}";
        double refusedBefore = counter(refused);
        double deliveredBefore = counter(delivered);
        sink.answer(503);
        sink.answerBody(body);

        long eventId = paidEvent();
        awaitFailures(eventId, 1);
        tryAgainNow(eventId);
        awaitFailures(eventId, 2);
        sink.answer(200);
        tryAgainNow(eventId);
        assertThat(db.first("SELECT status FROM outbox WHERE id = ?", eventId).getInteger("status")).isEqualTo(1);

        JsonPath attempts = attempts(eventId);
        assertThat(attempts.getList("tryNumber", Integer.class)).containsExactly(1, 2, 3);
        assertThat(attempts.getList("result", String.class)).containsExactly("refused", "refused", "delivered");
        assertThat(attempts.getList("httpStatus", Integer.class)).containsExactly(503, 503, 200);
        assertThat(attempts.getList("eventId", Long.class)).containsOnly(eventId);
        assertThat(attempts.getList("destination", String.class)).containsOnly("sink");
        assertThat(attempts.getList("error")).containsOnlyNulls();
        assertThat(attempts.getList("latencyMs", Long.class)).allSatisfy(latency -> assertThat(latency).isNotNegative());
        List<LocalDateTime> times = attempts.getList("attemptedAt", String.class).stream().map(LocalDateTime::parse).toList();
        assertThat(times).isSorted();

        byte[] full = body.getBytes(StandardCharsets.UTF_8);
        String kept = marker.substring(0, 1) + "é".repeat(255);
        assertThat(attempts.getList("responseLength", Integer.class)).containsOnly(full.length);
        assertThat(attempts.getList("responseBody", String.class)).containsOnly(kept);
        assertThat(attempts.getList("responseTruncated", Boolean.class)).containsOnly(true);
        assertThat(db.count("SELECT MAX(LENGTH(response_body)) FROM delivery_attempts WHERE outbox_id = ?", eventId))
                .isEqualTo(511);
        // The failed tries are rows of their own; the one that delivered is kept on the event's row.
        List<Object> ids = attempts.getList("id");
        assertThat(ids).hasSize(3);
        assertThat(ids.subList(0, 2)).doesNotContainNull();
        assertThat(ids.get(2)).isNull();
        assertThat(db.count("SELECT COUNT(*) FROM delivery_attempts WHERE outbox_id = ?", eventId)).isEqualTo(2);
        assertThat(db.count("SELECT LENGTH(delivered_response_body) FROM outbox WHERE id = ? AND delivered_http_status = 200",
                eventId)).isEqualTo(511);

        assertThat(counter(refused)).isGreaterThanOrEqualTo(refusedBefore + 2);
        assertThat(counter(delivered)).isGreaterThanOrEqualTo(deliveredBefore + 1);
        assertThat(Files.readString(Path.of("target/quarkus-test.log"))).doesNotContain(marker).doesNotContain("éé");
    }

    @Test
    void aTimeoutIsRecordedAsAnErrorWithoutStatus() {
        sink.delay(Duration.ofSeconds(3));

        long eventId = paidEvent();
        awaitFailures(eventId, 1);

        JsonPath attempts = attempts(eventId);
        assertThat(attempts.getList("result", String.class)).containsExactly("failed");
        assertThat(attempts.getList("httpStatus")).containsOnlyNulls();
        assertThat(attempts.getList("responseBody")).containsOnlyNulls();
        assertThat(attempts.getString("[0].error")).containsIgnoringCase("timeout");
        assertThat(attempts.getLong("[0].latencyMs")).isBetween(1_900L, 2_900L);
        assertThat(db.first("SELECT last_error FROM outbox WHERE id = ?", eventId).getString("last_error"))
                .containsIgnoringCase("timeout");
    }

    @Test
    void aTryWhoseLeaseWasLostMeanwhileIsStillRecorded() {
        String source = Ids.unique("lost");
        db.update("INSERT INTO outbox (source, type, destination, merchant_id, out_trade_no, payload, status, retry_count,"
                + " lease_token, next_retry_at, created_at, updated_at) VALUES (?, 'order.paid', 'sink', 'default', 'ORD-LOST',"
                + " '{\"type\":\"order.paid\"}', 0, 0, 'another-worker', DATE_ADD(NOW(3), INTERVAL 1 MINUTE), NOW(3), NOW(3))",
                source);
        long eventId = db.first("SELECT id FROM outbox WHERE source = ?", source).getLong("id");

        RowLease expired = new RowLease(Outbox.TABLE, eventId, "expired-lease", 0);
        assertThat(relay.attempt(List.of(expired)).rows()).containsExactly(new Tried.Lost(expired));

        assertThat(db.first("SELECT status, lease_token FROM outbox WHERE id = ?", eventId).getString("lease_token"))
                .isEqualTo("another-worker");
        assertThat(attempts(eventId).getList("result", String.class)).containsExactly("delivered");
    }

    @Test
    void aBatchFinishesWithEachDeliveredTryOnItsRowAndALostLeaseCostsTheOthersNothing() {
        sink.answer(202);
        sink.answerBody("taken");
        List<RowLease> held = new ArrayList<>();
        for (int row = 0; row < 4; row++) {
            String source = Ids.unique("batch");
            String token = Ids.unique("lease");
            db.update("INSERT INTO outbox (source, type, destination, merchant_id, out_trade_no, payload, status,"
                    + " retry_count, lease_token, next_retry_at, created_at, updated_at) VALUES (?, 'order.paid', 'sink',"
                    + " 'default', 'ORD-BATCH', '{\"type\":\"order.paid\"}', 0, ?, ?, DATE_ADD(NOW(3), INTERVAL 1 MINUTE),"
                    + " NOW(3), NOW(3))", source, row, token);
            held.add(new RowLease(Outbox.TABLE, db.first("SELECT id FROM outbox WHERE source = ?", source).getLong("id"),
                    token, row));
        }
        RowLease lost = new RowLease(Outbox.TABLE, held.get(2).id(), "taken-over-meanwhile", 2);
        List<LeasedRow> batch = List.of(held.get(0), held.get(1), lost, held.get(3));

        assertThat(relay.attempt(batch).rows()).containsExactlyInAnyOrder(new Tried.Done(held.get(0), OutboxRelay.DELIVERED),
                new Tried.Done(held.get(1), OutboxRelay.DELIVERED), new Tried.Lost(lost),
                new Tried.Done(held.get(3), OutboxRelay.DELIVERED));

        for (RowLease done : List.of(held.get(0), held.get(1), held.get(3))) {
            JsonPath attempts = attempts(done.id());
            assertThat(attempts.getList("result", String.class)).containsExactly("delivered");
            assertThat(attempts.getList("tryNumber", Integer.class)).containsExactly(done.failures() + 1);
            assertThat(attempts.getList("httpStatus", Integer.class)).containsExactly(202);
            assertThat(attempts.getList("responseBody", String.class)).containsExactly("taken");
            assertThat(attempts.getList("responseLength", Integer.class)).containsExactly(5);
            assertThat(attempts.getList("id")).containsExactly((Object) null);
            assertThat(db.count("SELECT COUNT(*) FROM delivery_attempts WHERE outbox_id = ?", done.id())).isZero();
            assertThat(db.count("SELECT COUNT(*) FROM outbox WHERE id = ? AND status = 1 AND lease_token IS NULL",
                    done.id())).isEqualTo(1);
        }
        // The lost row is another worker's: untouched, but the destination did see this try.
        assertThat(db.first("SELECT lease_token FROM outbox WHERE id = ?", lost.id()).getString("lease_token"))
                .isEqualTo(held.get(2).token());
        assertThat(db.count("SELECT COUNT(*) FROM outbox WHERE id = ? AND delivered_at IS NULL", lost.id())).isEqualTo(1);
        assertThat(attempts(lost.id()).getList("result", String.class)).containsExactly("delivered");
        assertThat(attempts(lost.id()).getList("id")).doesNotContainNull();
    }

    @Test
    void attemptsOfAnUnknownEventAre404AndNeedTheToken() {
        Api.authorized().get("/admin/outbox/999999999/attempts").then().statusCode(404);
        given().get("/admin/outbox/1/attempts").then().statusCode(401);
    }

    @Test
    void housekeepingArchivesAttemptsWithTheirOutboxRowPastTheRetention() {
        long ancient = doneEvent("100 DAY");
        long recent = doneEvent("2 HOUR");
        for (long eventId : List.of(ancient, ancient, recent)) {
            db.update("""
                    INSERT INTO delivery_attempts (outbox_id, try_number, destination, attempted_at, result, http_status,
                        latency_ms, response_length, response_body)
                    VALUES (?, 1, 'sink', NOW(3), 'delivered', 200, 3, 2, 'ok')""", eventId);
        }

        housekeeping.runOnce();

        assertThat(db.count("SELECT COUNT(*) FROM delivery_attempts WHERE outbox_id = ?", ancient)).isZero();
        assertThat(db.count("SELECT COUNT(*) FROM delivery_attempts_archive WHERE outbox_id = ?", ancient)).isEqualTo(2);
        assertThat(db.count("SELECT COUNT(*) FROM outbox_archive WHERE id = ?", ancient)).isEqualTo(1);
        assertThat(db.count("SELECT COUNT(*) FROM delivery_attempts WHERE outbox_id = ?", recent)).isEqualTo(1);
        assertThat(attempts(ancient).getList("tryNumber", Integer.class)).as("archived with the event").hasSize(2);
        assertThat(attempts(recent).getList("responseBody", String.class)).containsExactly("ok");
    }

    private long doneEvent(String age) {
        String source = Ids.unique("hk-attempts");
        db.update("INSERT INTO outbox (source, type, destination, merchant_id, out_trade_no, payload, status, retry_count,"
                + " next_retry_at, created_at, updated_at) VALUES (?, 'order.paid', 'sink', 'default', 'ORD-HKA', '{}', 1, 0,"
                + " DATE_SUB(NOW(3), INTERVAL " + age + "), NOW(3), NOW(3))", source);
        return db.first("SELECT id FROM outbox WHERE source = ?", source).getLong("id");
    }
}
