package io.paycallback.console;

import io.paycallback.testsupport.Api;
import io.paycallback.testsupport.Db;
import io.paycallback.testsupport.Ids;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

/** The console's login, session, CSRF and escaping rules over HTTP; ConsoleBrowserTest drives it in Chromium. */
@QuarkusTest
class ConsoleTest {

    private static final Pattern CSRF = Pattern.compile("\"X-Console-Csrf\": \"([^\"]+)\"");

    @Inject
    Pool pool;

    private Db db;

    @BeforeEach
    void setUp() {
        db = new Db(pool);
    }

    @Test
    void onlyAnOperatorTokenOpensASessionAndTheCookieIsLockedDown() {
        given().redirects().follow(false).get("/admin/console").then().statusCode(302)
                .header("Location", org.hamcrest.Matchers.endsWith("/admin/console/login"));
        given().redirects().follow(false).header("HX-Request", "true").get("/admin/console/dead")
                .then().statusCode(401).header("HX-Redirect", "/admin/console/login");
        // The JSON API's bearer token does not open the console, and the console's cookie does not open the API.
        Api.as(Api.ALICE_TOKEN).redirects().follow(false).get("/admin/console").then().statusCode(302);

        for (String refused : new String[] {Api.ORDER_SERVICE_TOKEN, "not-a-configured-token-at-all", ""}) {
            given().redirects().follow(false).formParam("token", refused).post("/admin/console/login")
                    .then().statusCode(401).header("Set-Cookie", org.hamcrest.Matchers.nullValue());
        }

        Response login = login(Api.ALICE_TOKEN);
        String setCookie = login.header("Set-Cookie");
        assertThat(setCookie).contains(ConsoleSessions.COOKIE + "=").contains("Path=/admin/console").contains("HttpOnly")
                .containsIgnoringCase("SameSite=Strict").doesNotContain(Api.ALICE_TOKEN);
        String cookie = login.cookie(ConsoleSessions.COOKIE);

        given().cookie(ConsoleSessions.COOKIE, cookie).get("/admin/console").then().statusCode(200)
                .header("Content-Security-Policy", ConsoleGuard.CSP).header("X-Frame-Options", "DENY");
        given().cookie(ConsoleSessions.COOKIE, cookie).get("/admin/quarantine").then().statusCode(401);
        given().cookie(ConsoleSessions.COOKIE, cookie.substring(0, cookie.length() - 2) + "xx").redirects().follow(false)
                .get("/admin/console").then().statusCode(302);
    }

    @Test
    void everyStateChangeNeedsTheSessionsCsrfTokenAndTheConsolesOrigin() {
        long id = insertDeadPayment(Ids.unique("CSRF"), "{}");
        String cookie = login(Api.BOB_TOKEN).cookie(ConsoleSessions.COOKIE);
        String csrf = csrf(cookie);
        String otherSessionsCsrf = csrf(login(Api.BOB_TOKEN).cookie(ConsoleSessions.COOKIE));
        assertThat(otherSessionsCsrf).isNotEqualTo(csrf);

        String requeue = "/admin/console/callbacks/payment/" + id + "/requeue";
        given().cookie(ConsoleSessions.COOKIE, cookie).post(requeue).then().statusCode(403);
        given().cookie(ConsoleSessions.COOKIE, cookie).header(ConsoleGuard.CSRF_HEADER, otherSessionsCsrf).post(requeue)
                .then().statusCode(403);
        given().cookie(ConsoleSessions.COOKIE, cookie).header(ConsoleGuard.CSRF_HEADER, csrf)
                .header("Origin", "https://evil.example").post(requeue).then().statusCode(403);
        assertThat(status(id)).as("nothing refused changed the row").isEqualTo(2);

        given().cookie(ConsoleSessions.COOKIE, cookie).header(ConsoleGuard.CSRF_HEADER, csrf).post(requeue)
                .then().statusCode(200).body(org.hamcrest.Matchers.containsString("requeued"));
        assertThat(db.count("SELECT COUNT(*) FROM audit_log WHERE actor = 'bob' AND target = ?", "pay_callback_log#" + id))
                .as("audited under the token's name").isEqualTo(1);
    }

    @Test
    void aHostileBodyIsShownAsEscapedText() {
        long id = insertDeadPayment(Ids.unique("XSS"), "{\"x\":\"</pre><script>alert(1)</script><img src=x onerror=alert(2)>\"}");
        String cookie = login(Api.ALICE_TOKEN).cookie(ConsoleSessions.COOKIE);
        String body = given().cookie(ConsoleSessions.COOKIE, cookie).get("/admin/console/callbacks/payment/" + id + "/body")
                .then().statusCode(200).extract().asString();
        assertThat(body).doesNotContain("<script>").doesNotContain("<img").doesNotContain("</pre><")
                .contains("&lt;/pre&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;");
    }

    @Test
    void theScriptAndStylesheetAreServedByTheServiceItself() throws Exception {
        given().get(ConsolePage.HTMX).then().statusCode(200).body(org.hamcrest.Matchers.containsString("htmx"));
        given().get("/console-assets/console.css").then().statusCode(200);
        String pom = Files.readString(Path.of("pom.xml"));
        assertThat(ConsolePage.HTMX).as("the webjar's version in the pom").contains(
                "/" + pom.replaceAll("(?s).*<htmx.version>([^<]+)</htmx.version>.*", "$1") + "/");
    }

    @Test
    void anOrderIsFoundByEachOfItsNumbers() {
        String outTradeNo = Ids.unique("FIND");
        String tradeNo = Ids.unique("TRADE");
        String refundNo = Ids.unique("RF");
        db.update("""
                INSERT INTO pay_callback_log (merchant_id, channel, channel_trade_no, out_trade_no, trade_state, amount,
                    currency, status, retry_count, next_retry_at, raw_body, created_at, updated_at)
                VALUES ('default', 'stripe', ?, ?, 'succeeded', 5.00, 'USD', 1, 0, NOW(3), '', NOW(3), NOW(3))""",
                tradeNo, outTradeNo);
        db.update("""
                INSERT INTO refund_callback_log (merchant_id, channel, refund_no, channel_trade_no, out_trade_no, refund_state,
                    amount, currency, status, retry_count, next_retry_at, raw_body, created_at, updated_at)
                VALUES ('default', 'stripe', ?, ?, ?, 'SUCCEEDED', 5.00, 'USD', 2, 8, NOW(3), '', NOW(3), NOW(3))""",
                refundNo, tradeNo, outTradeNo);
        String cookie = login(Api.ALICE_TOKEN).cookie(ConsoleSessions.COOKIE);
        for (String[] search : new String[][] {{"order", outTradeNo}, {"trade", tradeNo}, {"refund", refundNo}}) {
            String page = given().cookie(ConsoleSessions.COOKIE, cookie).queryParam("by", search[0])
                    .queryParam("q", search[1]).get("/admin/console/search").then().statusCode(200).extract().asString();
            assertThat(page).as(search[0]).contains("Order " + outTradeNo).contains(tradeNo).contains(refundNo)
                    .contains("No order with this number");
        }
        String none = given().cookie(ConsoleSessions.COOKIE, cookie).queryParam("by", "trade").queryParam("q", "nope")
                .get("/admin/console/search").then().statusCode(200).extract().asString();
        assertThat(none).contains("Nothing found for nope");
    }

    static Response login(String token) {
        Response login = given().redirects().follow(false).formParam("token", token).post("/admin/console/login");
        login.then().statusCode(303).header("Location", org.hamcrest.Matchers.endsWith("/admin/console"));
        return login;
    }

    private static String csrf(String cookie) {
        String page = given().cookie(ConsoleSessions.COOKIE, cookie).get("/admin/console").then().statusCode(200)
                .extract().asString();
        Matcher matcher = CSRF.matcher(page);
        assertThat(matcher.find()).as("the page carries its CSRF token").isTrue();
        return matcher.group(1);
    }

    private int status(long id) {
        return db.first("SELECT status FROM pay_callback_log WHERE id = ?", id).getInteger("status");
    }

    private long insertDeadPayment(String tradeNo, String body) {
        db.update("""
                INSERT INTO pay_callback_log (merchant_id, channel, channel_trade_no, out_trade_no, trade_state, amount,
                    currency, status, retry_count, next_retry_at, last_error, raw_body, created_at, updated_at)
                VALUES ('default', 'wxpay', ?, ?, 'SUCCESS', 1.00, 'CNY', 2, 8, NOW(3), 'unknown order', ?, NOW(3), NOW(3))""",
                tradeNo, Ids.unique("ORD"), body);
        return db.first("SELECT id FROM pay_callback_log WHERE merchant_id = 'default' AND channel = 'wxpay' AND channel_trade_no = ?",
                tradeNo).getLong("id");
    }
}
