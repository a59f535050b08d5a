package io.paycallback.apikey;

import io.paycallback.console.ConsoleGuard;
import io.paycallback.console.ConsoleSessions;
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
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * API keys made as data against the real database: made through the admin API and the console, shown once, stored as a
 * hash, scoped to their merchants on the order service's API (another merchant's order is 404), revoked within a poll,
 * every change audited.
 */
@QuarkusTest
class ApiKeysTest {

    private static final Path LOG = Path.of("target/quarkus-test.log");
    private static final Pattern CSRF = Pattern.compile("\"X-Console-Csrf\": \"([^\"]+)\"");
    private static final Pattern TOKEN = Pattern.compile("id=\"key-token\" class=\"secret\">(pck_[^<]+)<");

    @Inject
    Pool pool;

    private Db db;

    @BeforeEach
    void setUp() {
        db = new Db(pool);
    }

    static String merchant(String prefix) {
        String id = Ids.unique(prefix).toLowerCase().substring(0, 20);
        Api.as(Api.ALICE_TOKEN).contentType("application/json").body(Map.of("id", id))
                .post("/admin/registry/merchants").then().statusCode(201);
        return id;
    }

    static String key(String name, String... merchants) {
        Response made = Api.as(Api.ALICE_TOKEN).contentType("application/json")
                .body(Map.of("name", name, "merchants", List.of(merchants))).post("/admin/api-keys");
        made.then().statusCode(201);
        return made.jsonPath().getString("token");
    }

    private static Response register(String token, String body) {
        return Api.as(token).contentType("application/json").body(body).post("/internal/orders");
    }

    @Test
    void aScopedKeyReachesItsMerchantsOrdersAndNoOtherOne() throws Exception {
        String mine = merchant("own");
        String other = merchant("oth");
        String token = key("checkout of " + mine, mine);
        assertThat(token).matches("pck_[a-z0-9]{8}_[A-Za-z0-9_-]{43}");
        String id = token.substring(4, 12);
        byte[] stored = db.first("SELECT secret_sha256 FROM api_keys WHERE id = ?", id).getBuffer("secret_sha256").getBytes();
        assertThat(stored).as("a SHA-256 of the secret, not the key").hasSize(32)
                .isEqualTo(java.security.MessageDigest.getInstance("SHA-256")
                        .digest(token.substring(13).getBytes(StandardCharsets.UTF_8)));

        String named = Ids.unique("KEY");
        register(token, "{\"merchantId\":\"" + mine + "\",\"outTradeNo\":\"" + named + "\",\"amount\":\"1.00\",\"currency\":\"CNY\"}")
                .then().statusCode(201);
        String unnamed = Ids.unique("KEY");
        register(token, "{\"outTradeNo\":\"" + unnamed + "\",\"amount\":\"1.00\",\"currency\":\"CNY\"}").then().statusCode(201);
        Api.as(token).get("/internal/orders/" + unnamed).then().statusCode(200)
                .body("merchantId", org.hamcrest.Matchers.equalTo(mine));
        Api.as(token).queryParam("merchantId", mine).get("/internal/orders/" + named).then().statusCode(200);

        String theirs = Ids.unique("KEY");
        Api.createOrder(other, theirs, "1.00", "CNY").then().statusCode(201);
        Response read = Api.as(token).queryParam("merchantId", other).get("/internal/orders/" + theirs);
        Response absent = Api.as(token).queryParam("merchantId", mine).get("/internal/orders/" + Ids.unique("NONE"));
        assertThat(read.statusCode()).isEqualTo(404);
        assertThat(read.jsonPath().getString("error")).as("the same answer as an order that does not exist")
                .isEqualTo(absent.jsonPath().getString("error").replaceAll("NONE\\S*", theirs));
        Api.as(token).queryParam("merchantId", other).post("/internal/orders/" + theirs + "/close").then().statusCode(404);
        Api.as(token).get("/internal/orders/" + theirs).then().statusCode(404);
        register(token, "{\"merchantId\":\"" + other + "\",\"outTradeNo\":\"" + Ids.unique("KEY")
                + "\",\"amount\":\"1.00\",\"currency\":\"CNY\"}").then().statusCode(404);
        Api.orderStatus(other, theirs);
        Api.as(token).queryParam("merchantId", mine).post("/internal/orders/" + named + "/close").then().statusCode(200);

        Api.as(token).get("/admin/api-keys").then().statusCode(403);
        // A token from properties reaches every merchant.
        Api.as(Api.ORDER_SERVICE_TOKEN).queryParam("merchantId", other).get("/internal/orders/" + theirs)
                .then().statusCode(200);

        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(
                db.first("SELECT last_used_at FROM api_keys WHERE id = ?", id).getLocalDateTime("last_used_at")).isNotNull());
        List<Map<String, Object>> listed = Api.as(Api.BOB_TOKEN).get("/admin/api-keys").then().statusCode(200)
                .extract().jsonPath().getList("findAll { it.id == '" + id + "' }");
        assertThat(listed).hasSize(1);
        assertThat(listed.get(0)).containsEntry("prefix", "pck_" + id).containsEntry("merchants", List.of(mine))
                .containsEntry("createdBy", "alice").doesNotContainKey("token");
        assertThat(listed.get(0).get("lastUsedAt")).isNotNull();
        assertThat(listed.toString()).doesNotContain(token.substring(13));
        assertThat(Files.readString(LOG, StandardCharsets.UTF_8)).doesNotContain(token.substring(13));
    }

    @Test
    void aRevokedKeyIsRefusedAndBothChangesAreAudited() {
        String mine = merchant("rev");
        String token = key("to revoke", mine);
        String id = token.substring(4, 12);
        Api.as(token).get("/internal/orders/" + Ids.unique("NONE")).then().statusCode(404);

        Api.as(Api.BOB_TOKEN).post("/admin/api-keys/" + id + "/revoke").then().statusCode(200)
                .body("prefix", org.hamcrest.Matchers.equalTo("pck_" + id));
        Api.as(token).get("/internal/orders/" + Ids.unique("NONE")).then().statusCode(401);
        Api.as(Api.BOB_TOKEN).post("/admin/api-keys/" + id + "/revoke").then().statusCode(404);

        List<String> audited = db.rows("SELECT actor, action FROM audit_log WHERE target LIKE ? ORDER BY id",
                "api_key:" + id + "%").stream().map(row -> row.getString("actor") + " " + row.getString("action")).toList();
        assertThat(audited).containsExactly("alice api_key_create", "bob api_key_revoke");
    }

    /** Another instance's revocation reaches this one by its poll, within seconds, with no query per request. */
    @Test
    void aKeyRevokedElsewhereIsRefusedWithinAPoll() {
        String token = key("revoked elsewhere", merchant("oth"));
        Api.as(token).get("/internal/orders/" + Ids.unique("NONE")).then().statusCode(404);
        db.update("UPDATE api_keys SET revoked_by = 'another-instance', revoked_at = NOW(3) WHERE id = ?",
                token.substring(4, 12));
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() ->
                Api.as(token).get("/internal/orders/" + Ids.unique("NONE")).then().statusCode(401));
    }

    @Test
    void aKeyIsScopedToMerchantsTheRegistryKnows() {
        String mine = merchant("unk");
        for (Map<String, Object> body : List.<Map<String, Object>>of(Map.of("name", "x", "merchants", List.of("no-such-merchant")),
                Map.of("name", "x", "merchants", List.of()), Map.of("name", "", "merchants", List.of(mine)),
                Map.of("name", "x", "merchants", List.of(mine, "no-such-merchant")))) {
            assertThat(Api.as(Api.ALICE_TOKEN).contentType("application/json").body(body).post("/admin/api-keys")
                    .statusCode()).as(body.toString()).isEqualTo(400);
        }
        String both = key("two merchants", mine, "default");
        String unnamed = Ids.unique("KEY");
        register(both, "{\"outTradeNo\":\"" + unnamed + "\",\"amount\":\"1.00\",\"currency\":\"CNY\"}").then().statusCode(201);
        Api.as(both).get("/internal/orders/" + unnamed).then().statusCode(200)
                .body("merchantId", org.hamcrest.Matchers.equalTo("default"));
    }

    @Test
    void theConsoleMakesAKeyShowsItOnceAndRevokesIt() {
        String mine = merchant("con");
        String cookie = given().redirects().follow(false).formParam("token", Api.ALICE_TOKEN).post("/admin/console/login")
                .then().statusCode(303).extract().cookie(ConsoleSessions.COOKIE);
        String page = given().cookie(ConsoleSessions.COOKIE, cookie).get("/admin/console/api-keys").then().statusCode(200)
                .extract().asString();
        Matcher csrf = CSRF.matcher(page);
        assertThat(csrf.find()).isTrue();

        String made = given().cookie(ConsoleSessions.COOKIE, cookie).header(ConsoleGuard.CSRF_HEADER, csrf.group(1))
                .formParam("name", "console key").formParam("merchants", mine)
                .post("/admin/console/api-keys/create").then().statusCode(200).extract().asString();
        Matcher token = TOKEN.matcher(made);
        assertThat(token.find()).as(made).isTrue();
        String id = token.group(1).substring(4, 12);
        Api.as(token.group(1)).get("/internal/orders/" + Ids.unique("NONE")).then().statusCode(404);

        String listed = given().cookie(ConsoleSessions.COOKIE, cookie).get("/admin/console/api-keys").then().statusCode(200)
                .extract().asString();
        assertThat(listed).contains("pck_" + id).contains("console key").doesNotContain(token.group(1));

        String revoked = given().cookie(ConsoleSessions.COOKIE, cookie).header(ConsoleGuard.CSRF_HEADER, csrf.group(1))
                .post("/admin/console/api-keys/" + id + "/revoke").then().statusCode(200).extract().asString();
        assertThat(revoked).contains("revoked");
        Api.as(token.group(1)).get("/internal/orders/" + Ids.unique("NONE")).then().statusCode(401);
    }
}
