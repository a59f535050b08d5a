package io.paycallback.api;

import io.paycallback.testsupport.Api;
import io.paycallback.testsupport.Db;
import io.paycallback.testsupport.Ids;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

/** Two kinds of caller against the real database: each role reaches only its API, and operator changes are audited. */
@QuarkusTest
class RolesAndAuditTest {

    private static final Path LOG = Path.of("target/quarkus-test.log");

    @Inject
    Pool pool;

    private Db db;

    @BeforeEach
    void setUp() {
        db = new Db(pool);
    }

    @Test
    void eachRoleReachesOnlyItsOwnApi() {
        String outTradeNo = Ids.unique("ROLE");
        Api.as(Api.ORDER_SERVICE_TOKEN).contentType("application/json")
                .body("{\"outTradeNo\":\"" + outTradeNo + "\",\"amount\":\"1.00\",\"currency\":\"CNY\"}")
                .post("/internal/orders").then().statusCode(201);
        Api.as(Api.ORDER_SERVICE_TOKEN).get("/internal/orders/" + outTradeNo).then().statusCode(200);
        Api.as(Api.ORDER_SERVICE_TOKEN).get("/admin/quarantine").then().statusCode(403);
        Api.as(Api.ORDER_SERVICE_TOKEN).get("/admin/audit").then().statusCode(403);
        Api.as(Api.ORDER_SERVICE_TOKEN).contentType("application/json").body("{\"table\":\"payment\"}")
                .post("/admin/requeue").then().statusCode(403);

        for (String operator : List.of(Api.ALICE_TOKEN, Api.BOB_TOKEN)) {
            Api.as(operator).get("/admin/quarantine").then().statusCode(200);
            Api.as(operator).get("/internal/orders/" + outTradeNo).then().statusCode(403);
            Api.as(operator).contentType("application/json")
                    .body("{\"outTradeNo\":\"" + Ids.unique("ROLE") + "\",\"amount\":\"1.00\",\"currency\":\"CNY\"}")
                    .post("/internal/orders").then().statusCode(403);
        }

        given().get("/admin/quarantine").then().statusCode(401).header("WWW-Authenticate", "Bearer");
        given().get("/internal/orders/" + outTradeNo).then().statusCode(401);
        Api.as("not-a-configured-token-at-all").get("/admin/quarantine").then().statusCode(401);
        Api.as("not-a-configured-token-at-all").get("/internal/orders/" + outTradeNo).then().statusCode(401);

        Api.authorized().get("/internal/orders/" + outTradeNo).then().statusCode(200);
        Api.authorized().get("/admin/audit").then().statusCode(200);
    }

    @Test
    void aRequeueIsAuditedByTokenNameInTheTableAndTheLog() throws Exception {
        long id = insertDeadPayment(Ids.unique("M"), "downstream said no", 0);

        Api.as(Api.ALICE_TOKEN).post("/admin/callbacks/payment/" + id + "/requeue").then().statusCode(202);
        Api.as(Api.ALICE_TOKEN).post("/admin/callbacks/payment/" + id + "/requeue").then().statusCode(409);

        List<Map<String, Object>> entries = Api.as(Api.BOB_TOKEN).get("/admin/audit?limit=500")
                .then().statusCode(200).extract().jsonPath().getList("$");
        List<Map<String, Object>> mine = entries.stream()
                .filter(entry -> ("pay_callback_log#" + id).equals(entry.get("target"))).toList();
        assertThat(mine).as("one entry: the refused second requeue changed nothing").hasSize(1);
        assertThat(mine.get(0)).containsEntry("actor", "alice").containsEntry("action", "requeue").containsEntry("rows", 1);
        assertThat((String) mine.get(0).get("at")).isNotBlank();

        String log = Files.readString(LOG, StandardCharsets.UTF_8);
        assertThat(log).contains("requeue by alice on pay_callback_log#" + id + ", 1 rows")
                .contains("admin POST /admin/callbacks/payment/" + id + "/requeue by alice")
                .doesNotContain(Api.ALICE_TOKEN).doesNotContain(Api.BOB_TOKEN).doesNotContain(Api.ORDER_SERVICE_TOKEN);
    }

    @Test
    void aBulkRequeueTakesExactlyTheDryRunsRowsInBatches() {
        String merchant = Ids.unique("M");
        long first = insertDeadPayment(merchant, "warehouse answered 503", 0);
        long diesLater = insertPendingPayment(merchant);
        long second = insertDeadPayment(merchant, "warehouse answered 503", 0);
        long otherError = insertDeadPayment(merchant, "amount mismatch", 0);
        long third = insertDeadPayment(merchant, "warehouse answered 503", 0);
        long tooOld = insertDeadPayment(merchant, "warehouse answered 503", 3);

        String filter = "{\"table\":\"payment\",\"merchantId\":\"" + merchant + "\",\"errorContains\":\"503\","
                + "\"from\":\"" + db.first("SELECT DATE_SUB(NOW(3), INTERVAL 1 DAY) AS t").getLocalDateTime("t") + "\"}";
        Response dryRun = Api.as(Api.ALICE_TOKEN).contentType("application/json").body(filter).post("/admin/requeue");
        dryRun.then().statusCode(200);
        assertThat(dryRun.jsonPath().getBoolean("dryRun")).isTrue();
        assertThat(dryRun.jsonPath().getLong("matched")).isEqualTo(3);
        assertThat(dryRun.jsonPath().getLong("firstId")).isEqualTo(first);
        assertThat(dryRun.jsonPath().getLong("lastId")).isEqualTo(third);
        String token = dryRun.jsonPath().getString("token");
        assertThat(status(first)).as("a dry run changes nothing").isEqualTo(2);

        // After the dry run: a row inside its id range dies, and a new one dies; neither was counted.
        db.update("UPDATE pay_callback_log SET status = 2, last_error = 'warehouse answered 503', updated_at = NOW(3) WHERE id = ?",
                diesLater);
        long diedAfter = insertDeadPayment(merchant, "warehouse answered 503", 0);

        Api.as(Api.ALICE_TOKEN).contentType("application/json").body("{\"token\":\"" + token + "\",\"dryRun\":false,\"table\":\"payment\"}")
                .post("/admin/requeue").then().statusCode(400);
        Api.as(Api.ALICE_TOKEN).contentType("application/json").body("{\"token\":\"garbage\",\"dryRun\":false}")
                .post("/admin/requeue").then().statusCode(400);

        Response applied = Api.as(Api.BOB_TOKEN).contentType("application/json")
                .body("{\"token\":\"" + token + "\",\"dryRun\":false}").post("/admin/requeue");
        applied.then().statusCode(202);
        assertThat(applied.jsonPath().getLong("requeued")).isEqualTo(3);
        assertThat(applied.jsonPath().getInt("batches")).as("batch size 2 in the test profile").isEqualTo(2);

        assertThat(List.of(status(first), status(second), status(third))).containsOnly(0);
        assertThat(List.of(status(diesLater), status(diedAfter), status(otherError), status(tooOld))).containsOnly(2);

        long auditId = applied.jsonPath().getLong("auditId");
        Map<String, Object> entry = db.rows("SELECT actor, action, row_count, target FROM audit_log WHERE id = ?", auditId)
                .stream().map(row -> Map.<String, Object>of("actor", row.getString("actor"), "action", row.getString("action"),
                        "rows", row.getLong("row_count"), "target", row.getString("target"))).findFirst().orElseThrow();
        assertThat(entry).containsEntry("actor", "bob").containsEntry("action", "bulk_requeue").containsEntry("rows", 3L);
        assertThat((String) entry.get("target")).contains("merchant " + merchant).contains("ids " + first + ".." + third);

        Response again = Api.as(Api.BOB_TOKEN).contentType("application/json")
                .body("{\"token\":\"" + token + "\",\"dryRun\":false}").post("/admin/requeue");
        assertThat(again.jsonPath().getLong("requeued")).as("the same token twice requeues nothing more").isZero();
    }

    @Test
    void aBulkRequeueRefusesWhatItCannotMeanExactly() {
        for (String body : List.of("{\"table\":\"payment\",\"errorContain\":\"503\"}", "{\"table\":\"nothing\"}", "{}",
                "{\"table\":\"outbox\",\"channel\":\"wxpay\"}", "{\"table\":\"payment\",\"destination\":\"warehouse\"}",
                "{\"table\":\"payment\",\"channel\":\"paypal\"}", "{\"table\":\"payment\",\"dryRun\":false}",
                "{\"table\":\"payment\",\"from\":\"2026-01-02T00:00:00\",\"to\":\"2026-01-01T00:00:00\"}", "not json")) {
            Response response = Api.as(Api.ALICE_TOKEN).contentType("application/json").body(body).post("/admin/requeue");
            assertThat(response.statusCode()).as(body).isEqualTo(400);
            assertThat(response.jsonPath().getString("error")).as(body).isNotBlank();
        }
    }

    private int status(long id) {
        return db.first("SELECT status FROM pay_callback_log WHERE id = ?", id).getInteger("status");
    }

    private long insertDeadPayment(String merchant, String error, int daysAgo) {
        db.update("""
                INSERT INTO pay_callback_log (merchant_id, channel, channel_trade_no, out_trade_no, trade_state, amount,
                    currency, status, retry_count, next_retry_at, last_error, raw_body, created_at, updated_at)
                VALUES (?, 'wxpay', ?, 'ORD-BULK', 'SUCCESS', 1.00, 'CNY', 2, 9, NOW(3), ?, '',
                        DATE_SUB(NOW(3), INTERVAL ? DAY), DATE_SUB(NOW(3), INTERVAL ? DAY))""",
                merchant, Ids.unique("T"), error, daysAgo, daysAgo);
        return db.first("SELECT MAX(id) AS id FROM pay_callback_log WHERE merchant_id = ?", merchant).getLong("id");
    }

    private long insertPendingPayment(String merchant) {
        db.update("""
                INSERT INTO pay_callback_log (merchant_id, channel, channel_trade_no, out_trade_no, trade_state, amount,
                    currency, status, retry_count, next_retry_at, raw_body, created_at, updated_at)
                VALUES (?, 'wxpay', ?, 'ORD-BULK', 'SUCCESS', 1.00, 'CNY', 0, 7, DATE_ADD(NOW(3), INTERVAL 1 HOUR), '',
                        NOW(3), NOW(3))""", merchant, Ids.unique("T"));
        return db.first("SELECT MAX(id) AS id FROM pay_callback_log WHERE merchant_id = ?", merchant).getLong("id");
    }
}
