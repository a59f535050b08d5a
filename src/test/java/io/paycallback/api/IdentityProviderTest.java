package io.paycallback.api;

import io.paycallback.auth.MerchantScope;
import io.paycallback.auth.Roles;
import io.paycallback.console.ConsoleSessions;
import io.paycallback.testsupport.Api;
import io.paycallback.testsupport.Db;
import io.paycallback.testsupport.Ids;
import io.paycallback.testsupport.Keycloak;
import io.paycallback.testsupport.WithKeycloak;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The admin API with Keycloak as the identity provider (deploy/keycloak/realm-paycallback.json): its access tokens,
 * verified against the realm's keys, make operators and viewers by group, scoped by the merchants claim and audited
 * by user name, beside the static tokens, which keep working. Tokens for another audience, expired, or with a
 * signature the realm did not make are refused like unknown tokens.
 */
@QuarkusTest
@TestProfile(WithKeycloak.class)
class IdentityProviderTest {

    private static final Path LOG = Path.of("target/quarkus-test.log");

    @Inject
    Pool pool;

    @Inject
    ConsoleSessions sessions;

    private Db db;

    @BeforeEach
    void setUp() {
        Keycloak.assumeRunning();
        db = new Db(pool);
    }

    @Test
    void anOperatorReadsActsAndIsAuditedByUserName() throws Exception {
        String token = Keycloak.token(Keycloak.OPERATOR);
        Api.as(token).get("/admin/overview").then().statusCode(200);
        long id = insertDeadPayment("default");

        Api.as(token).post("/admin/callbacks/payment/" + id + "/requeue").then().statusCode(202);

        List<Map<String, Object>> entries = Api.as(token).get("/admin/audit?limit=500").then().statusCode(200)
                .extract().jsonPath().getList("$");
        assertThat(entries).filteredOn(entry -> ("pay_callback_log#" + id).equals(entry.get("target")))
                .singleElement().satisfies(entry -> assertThat(entry).containsEntry("actor", Keycloak.OPERATOR)
                        .containsEntry("action", "requeue"));
        String log = Files.readString(LOG, StandardCharsets.UTF_8);
        assertThat(log).contains("admin POST /admin/callbacks/payment/" + id + "/requeue by " + Keycloak.OPERATOR)
                .doesNotContain(token);
    }

    @Test
    void aViewerReadsEverythingAndDoesNothing() {
        String token = Keycloak.token(Keycloak.VIEWER);
        long id = insertDeadPayment("default");
        for (String path : List.of("/admin/overview", "/admin/audit", "/admin/dead-letters", "/admin/quarantine",
                "/admin/registry", "/admin/api-keys", "/admin/destinations", "/admin/statements/runs",
                "/admin/callbacks/payment/" + id)) {
            Api.as(token).get(path).then().statusCode(200);
        }
        Api.as(token).post("/admin/callbacks/payment/" + id + "/requeue").then().statusCode(403);
        Api.as(token).contentType("application/json").body(Map.of("id", "kc-viewer-made"))
                .post("/admin/registry/merchants").then().statusCode(403);
        Api.as(token).contentType("application/json").body(Map.of("name", "viewer's key", "merchants", List.of("default")))
                .post("/admin/api-keys").then().statusCode(403);
        assertThat(db.first("SELECT status FROM pay_callback_log WHERE id = ?", id).getInteger("status")).isEqualTo(2);
    }

    @Test
    void aScopedOperatorSeesOnlyTheirMerchants() {
        String token = Keycloak.token(Keycloak.SCOPED);
        ensureMerchant(Keycloak.SCOPED_MERCHANT);
        String theirs = Ids.unique("KCO");
        String others = Ids.unique("KCX");
        Api.createOrder(Keycloak.SCOPED_MERCHANT, theirs, "1.00", "CNY").then().statusCode(201);
        Api.createOrder("default", others, "1.00", "CNY").then().statusCode(201);

        Api.as(token).queryParam("q", theirs).get("/admin/orders").then().statusCode(200)
                .body("timeline.merchantId", org.hamcrest.Matchers.equalTo(Keycloak.SCOPED_MERCHANT));
        Api.as(token).queryParam("q", others).queryParam("merchantId", "default").get("/admin/orders")
                .then().statusCode(404);

        long own = insertDeadPayment(Keycloak.SCOPED_MERCHANT);
        long foreign = insertDeadPayment("default");
        Api.as(token).get("/admin/callbacks/payment/" + foreign).then().statusCode(404);
        Api.as(token).post("/admin/callbacks/payment/" + foreign + "/requeue").then().statusCode(404);
        assertThat(db.first("SELECT status FROM pay_callback_log WHERE id = ?", foreign).getInteger("status")).isEqualTo(2);
        Api.as(token).get("/admin/callbacks/payment/" + own).then().statusCode(200);
        Api.as(token).post("/admin/callbacks/payment/" + own + "/requeue").then().statusCode(202);

        // Views spanning every merchant are closed to a scoped operator.
        for (String path : List.of("/admin/overview", "/admin/audit", "/admin/dead-letters", "/admin/registry")) {
            Api.as(token).get(path).then().statusCode(403);
        }
    }

    @Test
    void aScopedOperatorsConsoleFindsOnlyTheirMerchantsOrders() {
        ensureMerchant(Keycloak.SCOPED_MERCHANT);
        String theirs = Ids.unique("KCO");
        String others = Ids.unique("KCX");
        Api.createOrder(Keycloak.SCOPED_MERCHANT, theirs, "1.00", "CNY").then().statusCode(201);
        Api.createOrder("default", others, "1.00", "CNY").then().statusCode(201);
        String cookie = sessions.openForProvider(Keycloak.SCOPED, Roles.OPERATOR,
                new MerchantScope(Set.of(Keycloak.SCOPED_MERCHANT))).orElseThrow().cookie();

        assertThat(given().cookie(ConsoleSessions.COOKIE, cookie).queryParam("q", theirs).get("/admin/console/search")
                .then().statusCode(200).extract().asString()).contains("id=\"timeline\"").contains(theirs);
        assertThat(given().cookie(ConsoleSessions.COOKIE, cookie).queryParam("q", others).queryParam("merchant", "default")
                .get("/admin/console/search").then().statusCode(200).extract().asString())
                .doesNotContain("id=\"timeline\"").doesNotContain(others + "</");
        given().cookie(ConsoleSessions.COOKIE, cookie).redirects().follow(false).get("/admin/console").then().statusCode(403);
        given().cookie(ConsoleSessions.COOKIE, cookie).get("/admin/console/dead").then().statusCode(403);
    }

    @Test
    void aUserWithoutPayCallbacksGroupsGetsNothing() {
        Api.as(Keycloak.token(Keycloak.NOBODY)).get("/admin/overview").then().statusCode(403);
    }

    @Test
    void tokensNotForUsAreRefusedAsUnknown() throws InterruptedException {
        given().get("/admin/overview").then().statusCode(401);
        Api.as(Keycloak.token(Keycloak.OPERATOR, Keycloak.OTHER_SERVICE)).get("/admin/overview").then().statusCode(401);

        String[] parts = Keycloak.token(Keycloak.OPERATOR).split("\\.");
        String claims = new String(Base64.getUrlDecoder().decode(parts[1]), StandardCharsets.UTF_8)
                .replace("\"" + Keycloak.OPERATOR + "\"", "\"mallory\"");
        String forged = parts[0] + "." + Base64.getUrlEncoder().withoutPadding()
                .encodeToString(claims.getBytes(StandardCharsets.UTF_8)) + "." + parts[2];
        Api.as(forged).get("/admin/overview").then().statusCode(401);

        String shortLived = Keycloak.token(Keycloak.OPERATOR, Keycloak.CLI_SHORT);
        Api.as(shortLived).get("/admin/overview").then().statusCode(200);
        Thread.sleep(3_000);
        Api.as(shortLived).get("/admin/overview").then().statusCode(401);

        // An order-service caller cannot be made through the identity provider, and its API ignores operators.
        Api.as(Keycloak.token(Keycloak.OPERATOR)).get("/internal/orders/" + Ids.unique("KC")).then().statusCode(403);
    }

    @Test
    void staticTokensStayForBreakGlassAndMachines() {
        Api.as(Api.ALICE_TOKEN).get("/admin/overview").then().statusCode(200);
        Api.as(Api.ORDER_SERVICE_TOKEN).get("/internal/orders/" + Ids.unique("KC")).then().statusCode(404);
        Api.as("not-a-configured-token-at-all").get("/admin/overview").then().statusCode(401);
    }

    private void ensureMerchant(String id) {
        if (Api.as(Api.ALICE_TOKEN).get("/admin/registry/merchants/" + id).statusCode() == 404) {
            Api.as(Api.ALICE_TOKEN).contentType("application/json").body(Map.of("id", id))
                    .post("/admin/registry/merchants").then().statusCode(201);
        }
    }

    private long insertDeadPayment(String merchant) {
        db.update("""
                INSERT INTO pay_callback_log (merchant_id, channel, channel_trade_no, out_trade_no, trade_state, amount,
                    currency, status, retry_count, next_retry_at, last_error, raw_body, created_at, updated_at)
                VALUES (?, 'wxpay', ?, 'ORD-KC', 'SUCCESS', 1.00, 'CNY', 2, 9, NOW(3), 'downstream said no', '',
                        NOW(3), NOW(3))""", merchant, Ids.unique("T"));
        return db.first("SELECT MAX(id) AS id FROM pay_callback_log WHERE merchant_id = ?", merchant).getLong("id");
    }
}
