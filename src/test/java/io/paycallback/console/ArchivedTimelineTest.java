package io.paycallback.console;

import io.paycallback.housekeeping.Housekeeping;
import io.paycallback.testsupport.Api;
import io.paycallback.testsupport.Db;
import io.paycallback.testsupport.Ids;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * An order from long ago keeps its story in the console after housekeeping has moved its rows to the archive: the
 * archived callbacks, events and delivery attempts are listed among the live ones, marked archived.
 */
@QuarkusTest
class ArchivedTimelineTest {

    /** Past the retention (90 days) and older than what other suites insert, so housekeeping's first batch takes it. */
    private static final String LONG_AGO = "400 DAY";
    private static final String BADGE = "badge archived";

    @Inject
    Pool pool;
    @Inject
    Housekeeping housekeeping;

    private Db db;

    @BeforeEach
    void setUp() {
        db = new Db(pool);
    }

    @Test
    void archivedRowsStayInTheTimelineMarkedArchivedAndInIdOrderWithTheLiveOnes() {
        String outTradeNo = Ids.unique("ARCH");
        String archivedTrade = Ids.unique("OLDTRADE");
        String archivedRefund = Ids.unique("OLDRF");
        Api.createOrder(outTradeNo, "30.00", "CNY").then().statusCode(201);
        // Done (status 1) with its body: housekeeping blanks it, then archives it, in one run.
        long archivedPayment = insertPayment(archivedTrade, outTradeNo, LONG_AGO);
        long archivedRefundCallback = insertRefund(archivedRefund, archivedTrade, outTradeNo);
        long archivedEvent = insertEvent("archive-test:" + archivedTrade, outTradeNo, LONG_AGO);
        db.update("""
                INSERT INTO delivery_attempts (outbox_id, try_number, destination, attempted_at, result, http_status,
                    latency_ms, response_length, response_body)
                VALUES (?, 1, 'sink', DATE_SUB(NOW(3), INTERVAL 400 DAY), 'refused', 503, 12, 9, 'busy-4711')""",
                archivedEvent);
        // The try that delivered it is kept on the event's row, and moves with it.
        db.update("""
                UPDATE outbox SET retry_count = 1, delivered_at = DATE_SUB(NOW(3), INTERVAL 399 DAY), delivered_http_status = 200,
                    delivered_latency_ms = 7, delivered_response_length = 11, delivered_response_body = 'accepted-42'
                WHERE id = ?""", archivedEvent);
        String liveTrade = Ids.unique("NEWTRADE");
        long livePayment = insertPayment(liveTrade, outTradeNo, "1 HOUR");
        long liveEvent = insertEvent("archive-test:" + liveTrade, outTradeNo, "1 HOUR");

        housekeeping.runOnce();
        assertThat(db.count("SELECT COUNT(*) FROM pay_callback_log WHERE id = ?", archivedPayment)).isZero();
        assertThat(db.count("SELECT COUNT(*) FROM pay_callback_log_archive WHERE id = ?", archivedPayment)).isEqualTo(1);
        assertThat(db.count("SELECT COUNT(*) FROM refund_callback_log_archive WHERE id = ?", archivedRefundCallback))
                .isEqualTo(1);
        assertThat(db.count("SELECT COUNT(*) FROM outbox_archive WHERE id = ?", archivedEvent)).isEqualTo(1);
        assertThat(db.count("SELECT COUNT(*) FROM delivery_attempts_archive WHERE outbox_id = ?", archivedEvent)).isEqualTo(1);
        assertThat(db.count("SELECT COUNT(*) FROM pay_callback_log WHERE id = ?", livePayment)).isEqualTo(1);

        String cookie = ConsoleTest.login(Api.ALICE_TOKEN).cookie(ConsoleSessions.COOKIE);
        String page = search(cookie, "order", outTradeNo);
        assertThat(fragment(page, "cb-payment-" + archivedPayment, "</tr>")).contains(BADGE).contains(archivedTrade)
                .contains("/admin/console/callbacks/payment/" + archivedPayment + "/body")
                .as("nothing acts on an archived row").doesNotContain("/replay").doesNotContain("/requeue");
        assertThat(fragment(page, "cb-refund-" + archivedRefundCallback, "</tr>")).contains(BADGE).contains(archivedRefund);
        assertThat(fragment(page, "cb-payment-" + livePayment, "</tr>")).doesNotContain(BADGE).contains("/replay");
        assertThat(page.indexOf("id=\"cb-payment-" + archivedPayment + "\""))
                .as("listed by id, as live rows are").isLessThan(page.indexOf("id=\"cb-payment-" + livePayment + "\""));

        assertThat(fragment(page, "ev-" + archivedEvent, "</article>")).contains(BADGE)
                .contains("archived with the event").contains("busy-4711").contains("accepted-42");
        assertThat(fragment(page, "ev-" + archivedEvent, "</article>").indexOf("busy-4711"))
                .as("oldest try first").isLessThan(fragment(page, "ev-" + archivedEvent, "</article>").indexOf("accepted-42"));
        assertThat(fragment(page, "ev-" + liveEvent, "</article>")).doesNotContain(BADGE);
        assertThat(page.indexOf("id=\"ev-" + archivedEvent + "\"")).isLessThan(page.indexOf("id=\"ev-" + liveEvent + "\""));

        for (String[] by : new String[][] {{"trade", archivedTrade}, {"refund", archivedRefund}}) {
            assertThat(search(cookie, by[0], by[1])).as("found by its archived " + by[0] + " no.")
                    .contains("Order " + outTradeNo).contains("id=\"cb-payment-" + archivedPayment + "\"");
        }

        String body = given().cookie(ConsoleSessions.COOKIE, cookie)
                .get("/admin/console/callbacks/payment/" + archivedPayment + "/body")
                .then().statusCode(200).extract().asString();
        assertThat(body).as("read from the archive, as the API reads it").contains("not kept").doesNotContain("paid");
        Api.authorized().get("/admin/callbacks/payment/" + archivedPayment + "?body=true").then().statusCode(200)
                .body("channelTradeNo", equalTo(archivedTrade))
                .body("rawBody", equalTo(""));
        given().cookie(ConsoleSessions.COOKIE, cookie).get("/admin/console/callbacks/payment/999999999/body")
                .then().statusCode(404);
        String tries = given().cookie(ConsoleSessions.COOKIE, cookie).get("/admin/console/outbox/" + archivedEvent + "/attempts")
                .then().statusCode(200).extract().asString();
        assertThat(tries).as("an archived event's tries, as the API answers them").contains("busy-4711")
                .contains("accepted-42");
    }

    private static String search(String cookie, String by, String number) {
        return given().cookie(ConsoleSessions.COOKIE, cookie).queryParam("by", by).queryParam("q", number)
                .get("/admin/console/search").then().statusCode(200).extract().asString();
    }

    /** The page's markup from the element with this id to the end tag that closes it. */
    private static String fragment(String page, String id, String endTag) {
        int start = page.indexOf("id=\"" + id + "\"");
        assertThat(start).as("the page has #" + id).isNotNegative();
        return page.substring(start, page.indexOf(endTag, start));
    }

    private long insertPayment(String tradeNo, String outTradeNo, String doneAgo) {
        db.update("""
                INSERT INTO pay_callback_log (merchant_id, channel, channel_trade_no, out_trade_no, trade_state, amount,
                    currency, status, retry_count, next_retry_at, raw_body, created_at, updated_at)
                VALUES ('default', 'wxpay', ?, ?, 'SUCCESS', 30.00, 'CNY', 1, 0, DATE_SUB(NOW(3), INTERVAL %s),
                        '{"paid":true}', DATE_SUB(NOW(3), INTERVAL %s), NOW(3))""".formatted(doneAgo, doneAgo),
                tradeNo, outTradeNo);
        return db.first("SELECT id FROM pay_callback_log WHERE merchant_id = 'default' AND channel = 'wxpay'"
                + " AND channel_trade_no = ?", tradeNo).getLong("id");
    }

    private long insertRefund(String refundNo, String tradeNo, String outTradeNo) {
        db.update("""
                INSERT INTO refund_callback_log (merchant_id, channel, refund_no, channel_trade_no, out_trade_no,
                    refund_state, amount, currency, status, retry_count, next_retry_at, raw_body, created_at, updated_at)
                VALUES ('default', 'wxpay', ?, ?, ?, 'SUCCEEDED', 10.00, 'CNY', 1, 0, DATE_SUB(NOW(3), INTERVAL %s),
                        '{"refunded":true}', DATE_SUB(NOW(3), INTERVAL %s), NOW(3))""".formatted(LONG_AGO, LONG_AGO),
                refundNo, tradeNo, outTradeNo);
        return db.first("SELECT id FROM refund_callback_log WHERE merchant_id = 'default' AND channel = 'wxpay'"
                + " AND refund_no = ?", refundNo).getLong("id");
    }

    private long insertEvent(String source, String outTradeNo, String doneAgo) {
        db.update("""
                INSERT INTO outbox (source, type, destination, merchant_id, out_trade_no, payload, status, retry_count,
                    next_retry_at, created_at, updated_at)
                VALUES (?, 'order.paid', 'sink', 'default', ?, '{}', 1, 0, DATE_SUB(NOW(3), INTERVAL %s),
                        DATE_SUB(NOW(3), INTERVAL %s), NOW(3))""".formatted(doneAgo, doneAgo), source, outTradeNo);
        return db.first("SELECT id FROM outbox WHERE source = ?", source).getLong("id");
    }
}
