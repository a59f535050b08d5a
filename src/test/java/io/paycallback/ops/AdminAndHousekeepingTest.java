package io.paycallback.ops;

import io.paycallback.health.BacklogGauges;
import io.paycallback.housekeeping.Housekeeping;
import io.paycallback.lease.Scanner;
import io.paycallback.testsupport.Api;
import io.paycallback.testsupport.Db;
import io.paycallback.testsupport.EventSink;
import io.paycallback.testsupport.Ids;
import io.paycallback.testsupport.ManagementPort;
import io.paycallback.testsupport.ProviderKeys;
import io.paycallback.testsupport.ProviderSigner;
import io.paycallback.testsupport.Send;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

@QuarkusTest
class AdminAndHousekeepingTest {

    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final int MANAGEMENT_PORT = ManagementPort.get();

    @Inject
    Pool pool;
    @Inject
    Scanner scanner;
    @Inject
    Housekeeping housekeeping;
    @Inject
    BacklogGauges gauges;

    private Db db;
    private ProviderSigner signer;
    private final EventSink sink = new EventSink();

    @BeforeEach
    void setUp() {
        db = new Db(pool);
        signer = new ProviderSigner(ProviderKeys.fromConfig());
        sink.reset();
    }

    private long payAndAwait(String outTradeNo, String transactionId, long fen, int status) {
        Send.payment(signer.wxPayment(outTradeNo, transactionId, fen, "SUCCESS", Instant.now())).then().statusCode(200);
        long id = db.first("SELECT id FROM pay_callback_log WHERE channel_trade_no = ?", transactionId).getLong("id");
        await().atMost(WAIT).until(() -> db.first("SELECT status FROM pay_callback_log WHERE id = ?", id).getInteger("status") == status);
        return id;
    }

    private static String metrics() {
        return given().port(MANAGEMENT_PORT).get("/q/metrics").then().statusCode(200).extract().asString();
    }

    private static double gauge(String metrics, String series) {
        return metrics.lines().filter(line -> line.startsWith(series + " "))
                .mapToDouble(line -> Double.parseDouble(line.substring(series.length() + 1).trim()))
                .findFirst().orElseThrow(() -> new AssertionError("no series " + series));
    }

    @Test
    void probesAreUpOnTheManagementPort() {
        given().port(MANAGEMENT_PORT).get("/q/health/live").then().statusCode(200);
        given().port(MANAGEMENT_PORT).get("/q/health/started").then().statusCode(200);
        String ready = given().port(MANAGEMENT_PORT).get("/q/health/ready").then().statusCode(200).extract().asString();
        assertThat(ready).contains("database migrations").contains("\"UP\"");
        // paycallback.database.galera-check=auto on a plain MariaDB: up, and not asked again.
        assertThat(ready).contains("galera node").contains("\"checked\"").doesNotContain("DOWN");
    }

    @Test
    void adminAndInternalApisRefuseCallsWithoutTheToken() {
        given().get("/admin/callbacks").then().statusCode(401);
        given().header("Authorization", "Bearer wrong").get("/admin/quarantine").then().statusCode(401);
        given().header("Authorization", "Basic " + Api.TOKEN).get("/admin/quarantine").then().statusCode(401);
        given().contentType("application/json").body("{}").post("/internal/orders").then().statusCode(401);
        Api.authorized().get("/admin/quarantine").then().statusCode(200);
    }

    @Test
    void theOrdersApiRejectsBadInputWithAMessage() {
        for (String body : List.of("not json", "{}", "{\"outTradeNo\":\"A1\",\"amount\":\"-1\",\"currency\":\"CNY\"}",
                "{\"outTradeNo\":\"A1\",\"amount\":\"1.001\",\"currency\":\"CNY\"}",
                "{\"outTradeNo\":\"A1\",\"amount\":\"1\",\"currency\":\"XYZ\"}",
                "{\"outTradeNo\":\"A1\",\"amount\":\"1.5\",\"currency\":\"JPY\"}",
                "{\"outTradeNo\":\"A1\",\"amount\":\"1\",\"currency\":\"KWD\"}")) {
            Response response = Api.authorized().contentType("application/json").body(body).post("/internal/orders");
            assertThat(response.statusCode()).as(body).isEqualTo(400);
            assertThat(response.jsonPath().getString("error")).as(body).isNotBlank();
        }
        String outTradeNo = Ids.unique("ORD");
        Api.createOrder(outTradeNo, "88.00", "CNY").then().statusCode(201);
        Api.createOrder(outTradeNo, "88.00", "CNY").then().statusCode(409);
        Api.order(Ids.unique("NONE")).then().statusCode(404);
    }

    @Test
    void deadLettersAreListedAndInspectedWithoutBodiesAndAReplayAddsNoSecondEffect() {
        String outTradeNo = Ids.unique("ORD");
        Api.createOrder(outTradeNo, "88.00", "CNY").then().statusCode(201);
        long id = payAndAwait(outTradeNo, Ids.unique("42000"), 1, 2);

        List<Map<String, Object>> dead = Api.authorized().get("/admin/callbacks?kind=payment&status=dead&limit=500")
                .then().statusCode(200).extract().jsonPath().getList("$");
        Map<String, Object> listed = dead.stream().filter(row -> ((Number) row.get("id")).longValue() == id).findFirst().orElseThrow();
        assertThat(listed).doesNotContainKey("rawBody").containsEntry("status", "dead");
        assertThat((String) listed.get("lastError")).contains("amount mismatch");

        assertThat(Api.authorized().get("/admin/callbacks/payment/" + id).jsonPath().getMap("$")).doesNotContainKey("rawBody");
        assertThat(Api.authorized().get("/admin/callbacks/payment/" + id + "?body=true").jsonPath().getString("rawBody"))
                .contains("AEAD_AES_256_GCM");

        Api.authorized().post("/admin/callbacks/payment/" + id + "/replay").then().statusCode(202);
        await().atMost(WAIT).until(() -> db.first("SELECT status, retry_count FROM pay_callback_log WHERE id = ?", id)
                .getInteger("status") == 2);
        assertThat(db.count("SELECT COUNT(*) FROM outbox WHERE source = ? AND type = 'alert'", "pay:" + id)).isEqualTo(1);
        assertThat(Api.orderStatus(outTradeNo)).isEqualTo("PENDING");

        Api.authorized().post("/admin/callbacks/payment/" + id + "/requeue").then().statusCode(202);
        await().atMost(WAIT).until(() -> db.first("SELECT status FROM pay_callback_log WHERE id = ?", id).getInteger("status") == 2);
        Api.authorized().post("/admin/callbacks/refund/999999999/replay").then().statusCode(404);
        Api.authorized().get("/admin/callbacks?kind=nothing").then().statusCode(400);
    }

    @Test
    void replayingAPaidCallbackIsADuplicate() {
        String outTradeNo = Ids.unique("ORD");
        Api.createOrder(outTradeNo, "9.00", "CNY").then().statusCode(201);
        long id = payAndAwait(outTradeNo, Ids.unique("42000"), 900, 1);
        Api.authorized().post("/admin/callbacks/payment/" + id + "/requeue").then().statusCode(409);

        Api.authorized().post("/admin/callbacks/payment/" + id + "/replay").then().statusCode(202);
        await().atMost(WAIT).until(() -> db.first("SELECT status FROM pay_callback_log WHERE id = ?", id).getInteger("status") == 1);

        assertThat(db.count("SELECT COUNT(*) FROM outbox WHERE source = ? AND type = 'order.paid'", "pay:" + id)).isEqualTo(1);
        List<Map<String, Object>> events = Api.authorized().get("/admin/outbox?outTradeNo=" + outTradeNo)
                .then().statusCode(200).extract().jsonPath().getList("$");
        assertThat(events).extracting(event -> event.get("type")).containsExactly("order.paid");
    }

    @Test
    void quarantineIsListedWithoutBodies() {
        String marker = Ids.unique("QMARK");
        Send.payment(signer.stripeSigned("{\"id\":\"evt_" + marker + "\",\"type\":\"payment_intent.succeeded\"", Instant.now()))
                .then().statusCode(400);
        String listing = Api.authorized().get("/admin/quarantine?limit=500").then().statusCode(200).extract().asString();
        assertThat(listing).contains("bodySha256").doesNotContain(marker);
    }

    @Test
    void gaugesCountStalePendingRowsDeadLettersAndQuarantine() {
        gauges.recount(Duration.ofSeconds(10));
        double staleBefore = gauge(metrics(), "paycallback_backlog_stale_pending{table=\"pay_callback_log\"}");
        db.update("""
                INSERT INTO pay_callback_log (merchant_id, channel, channel_trade_no, out_trade_no, trade_state, amount,
                    currency, status, retry_count, next_retry_at, raw_body, created_at, updated_at)
                VALUES ('default', 'wxpay', ?, 'ORD-STALE', 'SUCCESS', 1.00, 'CNY', 0, 3,
                        DATE_ADD(NOW(3), INTERVAL 1 DAY), '', DATE_SUB(NOW(3), INTERVAL 2 HOUR), NOW(3))""",
                Ids.unique("STALE"));

        gauges.recount(Duration.ofSeconds(10));
        String metrics = metrics();
        assertThat(gauge(metrics, "paycallback_backlog_stale_pending{table=\"pay_callback_log\"}")).isEqualTo(staleBefore + 1);
        assertThat(metrics).contains("paycallback_dead_letters{table=\"outbox\"}").contains("paycallback_quarantine_rows ");
    }

    @Test
    void housekeepingBlanksOldBodiesThenArchivesPastTheRetention() {
        String recent = Ids.unique("HK");
        String old = Ids.unique("HK");
        String ancient = Ids.unique("HK");
        for (String[] row : new String[][]{{recent, "1", "2 HOUR"}, {old, "1", "2 DAY"}, {ancient, "3", "100 DAY"}}) {
            db.update("INSERT INTO pay_callback_log (merchant_id, channel, channel_trade_no, out_trade_no, trade_state, amount,"
                    + " currency, status, retry_count, next_retry_at, raw_body, created_at, updated_at)"
                    + " VALUES ('default', 'alipay', ?, 'ORD-HK', 'TRADE_SUCCESS', 1.00, 'CNY', ?, 0,"
                    + " DATE_SUB(NOW(3), INTERVAL " + row[2] + "), 'body', NOW(3), NOW(3))", row[0], Integer.parseInt(row[1]));
        }
        db.update("INSERT INTO outbox (source, type, destination, merchant_id, out_trade_no, payload, status, retry_count,"
                + " next_retry_at, created_at, updated_at) VALUES (?, 'order.paid', 'sink', 'default', 'ORD-HK', '{}', 1, 0,"
                + " DATE_SUB(NOW(3), INTERVAL 100 DAY), NOW(3), NOW(3))", "hk:" + ancient);
        // Every column of the hot table must exist in its archive: a refund known only by its running total.
        db.update("INSERT INTO refund_callback_log (merchant_id, channel, refund_no, channel_trade_no, out_trade_no,"
                + " refund_state, amount, refunded_total, currency, origin, status, retry_count, next_retry_at, raw_body,"
                + " created_at, updated_at) VALUES ('default', 'alipay', ?, ?, 'ORD-HK', 'SUCCEEDED', NULL, 20.00, 'CNY',"
                + " 'callback', 3, 0, DATE_SUB(NOW(3), INTERVAL 100 DAY), '', NOW(3), NOW(3))", ancient, ancient);

        db.update("INSERT INTO order_queries (merchant_id, out_trade_no, status, retry_count, next_retry_at, created_at,"
                + " updated_at) VALUES ('default', ?, 1, 1, DATE_SUB(NOW(3), INTERVAL 100 DAY), NOW(3), NOW(3))", ancient);
        db.update("INSERT INTO order_queries (merchant_id, out_trade_no, status, retry_count, next_retry_at, created_at,"
                + " updated_at) VALUES ('default', ?, 1, 1, DATE_SUB(NOW(3), INTERVAL 2 DAY), NOW(3), NOW(3))", old);

        Housekeeping.Swept result = housekeeping.runOnce();
        assertThat(result.purged()).isGreaterThanOrEqualTo(1);
        assertThat(db.count("SELECT COUNT(*) FROM order_queries WHERE out_trade_no = ?", ancient)).isZero();
        assertThat(db.count("SELECT COUNT(*) FROM order_queries WHERE out_trade_no = ?", old)).isEqualTo(1);
        assertThat(result.blanked()).isGreaterThanOrEqualTo(1);
        assertThat(result.archived()).isGreaterThanOrEqualTo(2);

        assertThat(db.first("SELECT status, LENGTH(raw_body) AS len FROM pay_callback_log WHERE channel_trade_no = ?", recent)
                .getInteger("len")).isEqualTo(4);
        assertThat(db.first("SELECT status, LENGTH(raw_body) AS len FROM pay_callback_log WHERE channel_trade_no = ?", old)
                .getInteger("status")).isEqualTo(3);
        assertThat(db.first("SELECT LENGTH(raw_body) AS len FROM pay_callback_log WHERE channel_trade_no = ?", old)
                .getInteger("len")).isZero();
        assertThat(db.count("SELECT COUNT(*) FROM pay_callback_log WHERE channel_trade_no = ?", ancient)).isZero();
        assertThat(db.count("SELECT COUNT(*) FROM pay_callback_log_archive WHERE channel_trade_no = ?", ancient)).isEqualTo(1);
        assertThat(db.count("SELECT COUNT(*) FROM outbox_archive WHERE source = ?", "hk:" + ancient)).isEqualTo(1);
        assertThat(db.count("SELECT COUNT(*) FROM outbox WHERE source = ?", "hk:" + ancient)).isZero();
        assertThat(db.first("SELECT refunded_total FROM refund_callback_log_archive WHERE refund_no = ?", ancient)
                .getBigDecimal("refunded_total")).isEqualByComparingTo("20.00");

        long compacted = db.first("SELECT id FROM pay_callback_log WHERE channel_trade_no = ?", old).getLong("id");
        Api.authorized().post("/admin/callbacks/payment/" + compacted + "/replay").then().statusCode(409);
        Housekeeping.Swept again = housekeeping.runOnce();
        assertThat(db.count("SELECT COUNT(*) FROM pay_callback_log_archive WHERE channel_trade_no = ?", ancient)).isEqualTo(1);
        assertThat(again.archived()).isGreaterThanOrEqualTo(0);
    }
}
