package io.paycallback.platform;

import io.paycallback.console.ConsoleSessions;
import io.paycallback.inbox.CallbackLog;
import io.paycallback.lease.Scanner;
import io.paycallback.order.Refunds;
import io.paycallback.orderquery.OrderQueries;
import io.paycallback.orderquery.OrderQueryHandler;
import io.paycallback.testsupport.AgainstFakeProviders;
import io.paycallback.testsupport.Api;
import io.paycallback.testsupport.Concurrently;
import io.paycallback.testsupport.Ids;
import io.paycallback.testsupport.Platforms;
import io.paycallback.testsupport.Send;
import io.paycallback.testsupport.SignedCallback;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.response.Response;
import io.vertx.mutiny.core.buffer.Buffer;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.security.MessageDigest;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;

import static io.paycallback.testsupport.ProviderKeys.ACCOUNT_A;
import static io.paycallback.testsupport.ProviderKeys.ACCOUNT_B;
import static io.paycallback.testsupport.ProviderKeys.PLATFORM;
import static io.paycallback.testsupport.ProviderKeys.SHOP_A;
import static io.paycallback.testsupport.ProviderKeys.SHOP_B;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;

/**
 * A Stripe Connect platform ({@code market}) collecting for two merchants of ours, each a connected account: its
 * Connect endpoint's events are verified with the platform's secret and belong to the account's merchant; every call
 * for such a merchant is made with the platform's key and the account in {@code Stripe-Account}. The direct merchant
 * ({@code default}) runs beside it, unchanged.
 */
@QuarkusTest
@TestProfile(Platforms.class)
class StripeConnectTest extends AgainstFakeProviders {

    private static final String PLATFORM_PATH = "/pay/callback/stripe/" + PLATFORM;

    @Inject
    Scanner scanner;
    @Inject
    OrderQueryHandler reconciler;

    private String order(String merchantId, String amount, String currency) {
        String outTradeNo = Ids.unique("CON");
        Api.createOrder(merchantId, outTradeNo, amount, currency).then().statusCode(201);
        return outTradeNo;
    }

    private SignedCallback connectPayment(String account, String outTradeNo, String paymentIntent, long minor) {
        Instant now = Instant.now();
        return signer.stripeConnect(account, signer.stripePayment(outTradeNo, paymentIntent, minor, "usd", now), now);
    }

    @Test
    void aConnectedAccountsPaymentPushedTwiceAtOncePaysItsMerchantsOrderOnce() throws Exception {
        String outTradeNo = order(SHOP_A, "19.99", "USD");
        Api.createOrder(outTradeNo, "19.99", "USD").then().statusCode(201);
        String paymentIntent = Ids.unique("pi_");
        SignedCallback callback = connectPayment(ACCOUNT_A, outTradeNo, paymentIntent, 1999);

        List<Integer> statuses = Concurrently.times(4, () -> Send.post(PLATFORM_PATH, callback).statusCode());

        assertThat(statuses).containsOnly(200);
        await().atMost(WAIT).until(() -> "PAID".equals(Api.orderStatus(SHOP_A, outTradeNo)));
        assertThat(db.rows("SELECT merchant_id FROM pay_callback_log WHERE channel_trade_no = ?", paymentIntent))
                .singleElement().satisfies(row -> assertThat(row.getString("merchant_id")).isEqualTo(SHOP_A));
        assertThat(db.count("SELECT COUNT(DISTINCT source) FROM outbox WHERE type = 'order.paid' AND merchant_id = ?"
                + " AND out_trade_no = ?", SHOP_A, outTradeNo)).isEqualTo(1);
        // The direct merchant's order of the same number is another order: untouched.
        assertThat(Api.orderStatus(outTradeNo)).isEqualTo("PENDING");
    }

    /** An operator finds a sub-merchant's order by its merchant, in the admin API and on the console, like any other. */
    @Test
    void aSubMerchantsOrderIsTheOperatorsToFindLikeAnyOther() {
        String outTradeNo = order(SHOP_A, "19.99", "USD");
        String paymentIntent = Ids.unique("pi_");
        Send.post(PLATFORM_PATH, connectPayment(ACCOUNT_A, outTradeNo, paymentIntent, 1999)).then().statusCode(200);
        await().atMost(WAIT).until(() -> "PAID".equals(Api.orderStatus(SHOP_A, outTradeNo)));

        String found = Api.as(Api.ALICE_TOKEN).queryParam("by", "order").queryParam("merchantId", SHOP_A)
                .queryParam("q", outTradeNo).get("/admin/orders").then().statusCode(200).extract().asString();
        assertThat(found).contains(paymentIntent).contains("PAID");
        String cookie = io.restassured.RestAssured.given().redirects().follow(false).formParam("token", Api.ALICE_TOKEN)
                .post("/admin/console/login").then().statusCode(303).extract().cookie(ConsoleSessions.COOKIE);
        String page = io.restassured.RestAssured.given().cookie(ConsoleSessions.COOKIE, cookie).queryParam("by", "order")
                .queryParam("merchant", SHOP_A).queryParam("q", outTradeNo).get("/admin/console/search")
                .then().statusCode(200).extract().asString();
        assertThat(page).contains("merchant " + SHOP_A).contains(paymentIntent);
    }

    @Test
    void eachAccountsEventsGoToItsOwnMerchant() {
        String outTradeNo = order(SHOP_B, "5.00", "USD");
        Send.post(PLATFORM_PATH, connectPayment(ACCOUNT_B, outTradeNo, Ids.unique("pi_"), 500)).then().statusCode(200);
        await().atMost(WAIT).until(() -> "PAID".equals(Api.orderStatus(SHOP_B, outTradeNo)));
        // A sub-merchant's own path takes its own account's events, and no other's.
        String other = order(SHOP_A, "5.00", "USD");
        Send.post("/pay/callback/stripe/" + SHOP_A, connectPayment(ACCOUNT_B, other, Ids.unique("pi_"), 500))
                .then().statusCode(400);
        assertThat(Api.orderStatus(SHOP_A, other)).isEqualTo("PENDING");
    }

    @Test
    void anAccountThePlatformDoesNotServeIsQuarantinedAndPaysNothing() {
        String outTradeNo = order(SHOP_A, "19.99", "USD");
        String paymentIntent = Ids.unique("pi_");
        Response answer = Send.post(PLATFORM_PATH, connectPayment("acct_1Stranger", outTradeNo, paymentIntent, 1999));

        answer.then().statusCode(400);
        assertThat(db.count("SELECT COUNT(*) FROM pay_callback_log WHERE channel_trade_no = ?", paymentIntent)).isZero();
        assertThat(db.rows("SELECT merchant_id, reason FROM quarantine WHERE channel = 'stripe' AND raw_body LIKE ?",
                "%" + paymentIntent + "%")).singleElement().satisfies(row -> {
                    assertThat(row.getString("merchant_id")).isEqualTo(PLATFORM);
                    assertThat(row.getString("reason")).contains("not a connected account configured for this platform");
                });
        assertThat(Api.orderStatus(SHOP_A, outTradeNo)).isEqualTo("PENDING");
    }

    /** The runbook's way out: once the account is configured, the held notice is replayed and pays its order. */
    @Test
    void aHeldNoticeOfAnAccountConfiguredSinceIsReplayedToItsMerchant() throws Exception {
        String outTradeNo = order(SHOP_A, "19.99", "USD");
        byte[] body = connectPayment(ACCOUNT_A, outTradeNo, Ids.unique("pi_"), 1999).body();
        String hash = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(body));
        pool.preparedQuery("INSERT INTO quarantine (merchant_id, channel, kind, reason, body_hash, body_length, raw_body,"
                        + " created_at) VALUES (?, 'stripe', 'PAYMENT', 'the account was not configured', ?, ?, ?, NOW(3))")
                .execute(Tuple.of(PLATFORM, hash, body.length, Buffer.buffer(body))).await().indefinitely();
        long id = db.first("SELECT id FROM quarantine WHERE body_hash = ?", hash).getLong("id");

        Api.as(Api.ALICE_TOKEN).post("/admin/quarantine/" + id + "/replay").then().statusCode(202)
                .body("result", equalTo("stored"));
        scanner.drain(CallbackLog.PAYMENT.leased());

        await().atMost(WAIT).until(() -> "PAID".equals(Api.orderStatus(SHOP_A, outTradeNo)));
    }

    @Test
    void aQueryAsksTheConnectedAccountAndFindsItsPayment() {
        String outTradeNo = order(SHOP_A, "19.99", "USD");
        db.update("UPDATE orders SET created_at = DATE_SUB(NOW(3), INTERVAL 2 HOUR) WHERE merchant_id = ? AND out_trade_no = ?",
                SHOP_A, outTradeNo);
        providers.subMerchantPayment("stripe", ACCOUNT_A, outTradeNo, "succeeded", 1999, "usd", Ids.unique("pi_"));

        reconciler.enrol();
        scanner.drain(OrderQueries.TABLE);
        scanner.drain(CallbackLog.PAYMENT.leased());

        assertThat(Api.orderStatus(SHOP_A, outTradeNo)).isEqualTo("PAID");
        assertThat(providers.requestsFor("stripe", "query", ACCOUNT_A + "/" + outTradeNo)).singleElement()
                .satisfies(line -> assertThat(line).contains(" verified "));
        assertThat(providers.requestsFor("stripe", "query", outTradeNo)).isEmpty();
    }

    @Test
    void aPaymentMadeTwiceIsRefundedOnTheConnectedAccountAndAskedAboutThere() {
        String outTradeNo = order(SHOP_A, "19.99", "USD");
        Send.post(PLATFORM_PATH, connectPayment(ACCOUNT_A, outTradeNo, Ids.unique("pi_"), 1999)).then().statusCode(200);
        await().atMost(WAIT).until(() -> "PAID".equals(Api.orderStatus(SHOP_A, outTradeNo)));
        String second = Ids.unique("pi_");
        providers.subMerchantPayment("stripe", ACCOUNT_A, Ids.unique("SECOND"), "succeeded", 1999, "usd", second);
        Send.post(PLATFORM_PATH, connectPayment(ACCOUNT_A, outTradeNo, second, 1999)).then().statusCode(200);
        String refundNo = "RFP" + db.first("SELECT id FROM pay_callback_log WHERE channel_trade_no = ?", second).getLong("id");
        awaitRefundStatus(refundNo, "REQUESTED");
        providers.mode("stripe", "refund-pending");

        scanner.drain(Refunds.SUBMISSIONS);
        awaitRefundStatus(refundNo, "SUBMITTED");
        String refundId = db.first("SELECT channel_refund_id FROM refunds WHERE refund_no = ?", refundNo)
                .getString("channel_refund_id");
        providers.mode("stripe", "ok");
        db.update("UPDATE refund_submissions SET next_retry_at = DATE_SUB(NOW(3), INTERVAL 1 SECOND) WHERE refund_no = ?", refundNo);
        scanner.drain(Refunds.SUBMISSIONS);
        scanner.drain(CallbackLog.REFUND.leased());

        awaitRefundStatus(refundNo, "SUCCEEDED");
        assertThat(db.first("SELECT merchant_id FROM refunds WHERE refund_no = ?", refundNo).getString("merchant_id"))
                .isEqualTo(SHOP_A);
        assertThat(providers.requestsFor("stripe", "refund", ACCOUNT_A + "/" + refundNo)).singleElement()
                .satisfies(line -> assertThat(line).contains(" verified "));
        assertThat(providers.requestsFor("stripe", "refund-query", ACCOUNT_A + "/" + refundId)).hasSize(1);
    }

    @Test
    void anOrderIsClosedOnTheConnectedAccountOnly() {
        String outTradeNo = order(SHOP_B, "19.99", "USD");
        providers.subMerchantPayment("stripe", ACCOUNT_B, outTradeNo, "requires_payment_method", 1999, "usd", Ids.unique("pi_"));

        Api.closeOrder(SHOP_B, outTradeNo).then().statusCode(200);

        assertThat(Api.orderStatus(SHOP_B, outTradeNo)).isEqualTo("CLOSED");
        assertThat(providers.requestsFor("stripe", "close", ACCOUNT_B + "/" + outTradeNo)).singleElement()
                .satisfies(line -> assertThat(line).contains(" verified "));
    }

    @Test
    void aPaymentIntentOnAnotherAccountIsNotThisMerchants() {
        String outTradeNo = order(SHOP_B, "19.99", "USD");
        providers.subMerchantPayment("stripe", ACCOUNT_A, outTradeNo, "succeeded", 1999, "usd", Ids.unique("pi_"));

        // Stripe finds nothing on shop-b's account: the order closes, and shop-a's payment is not taken for it.
        Api.closeOrder(SHOP_B, outTradeNo).then().statusCode(200);

        assertThat(Api.orderStatus(SHOP_B, outTradeNo)).isEqualTo("CLOSED");
        assertThat(providers.requestsFor("stripe", "query", ACCOUNT_B + "/" + outTradeNo)).hasSize(1);
    }
}
