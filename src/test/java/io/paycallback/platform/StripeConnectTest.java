package io.paycallback.platform;

import io.paycallback.console.ConsoleSessions;
import io.paycallback.inbox.CallbackTable;
import io.paycallback.testsupport.Api;
import io.paycallback.testsupport.Ids;
import io.paycallback.testsupport.Platforms;
import io.paycallback.testsupport.Send;
import io.paycallback.testsupport.SignedCallback;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.vertx.mutiny.core.buffer.Buffer;
import io.vertx.mutiny.sqlclient.Tuple;
import org.junit.jupiter.api.Test;

import java.security.MessageDigest;
import java.time.Instant;
import java.util.HexFormat;

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
class StripeConnectTest extends AgainstPlatforms {

    private static final String PLATFORM_PATH = "/pay/callback/stripe/" + PLATFORM;

    private SignedCallback connectPayment(String account, String outTradeNo, String paymentIntent, long minor) {
        Instant now = Instant.now();
        return signer.stripeConnect(account, signer.stripePayment(outTradeNo, paymentIntent, minor, "usd", now), now);
    }

    @Test
    void aConnectedAccountsPaymentPushedTwiceAtOncePaysItsMerchantsOrderOnce() throws Exception {
        String outTradeNo = order(SHOP_A, "19.99", "USD");
        Api.createOrder(outTradeNo, "19.99", "USD").then().statusCode(201);
        String paymentIntent = Ids.unique("pi_");

        pushedAtOnce(PLATFORM_PATH, connectPayment(ACCOUNT_A, outTradeNo, paymentIntent, 1999));

        assertPaidOnce(SHOP_A, outTradeNo, paymentIntent);
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

        Send.post(PLATFORM_PATH, connectPayment("acct_1Stranger", outTradeNo, paymentIntent, 1999)).then().statusCode(400);

        assertHeld("stripe", PLATFORM, paymentIntent, "the event's account is not a connected account configured for this platform");
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
        scanner.drain(CallbackTable.PAYMENT.leased());

        await().atMost(WAIT).until(() -> "PAID".equals(Api.orderStatus(SHOP_A, outTradeNo)));
    }

    @Test
    void aQueryAsksTheConnectedAccountAndFindsItsPayment() {
        String outTradeNo = agedOrder(SHOP_A, "19.99", "USD");
        providers.subMerchantPayment("stripe", ACCOUNT_A, outTradeNo, "succeeded", 1999, "usd", Ids.unique("pi_"));

        queryRound();

        assertThat(Api.orderStatus(SHOP_A, outTradeNo)).isEqualTo("PAID");
        assertAskedOnce("stripe", "query", ACCOUNT_A + "/" + outTradeNo);
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
        String refundNo = refundOfSecondPayment(second);

        submittedThenQueried("stripe", refundNo);

        assertRefundOf(SHOP_A, refundNo, "SUCCEEDED");
        String refundId = db.first("SELECT channel_refund_id FROM refunds WHERE refund_no = ?", refundNo)
                .getString("channel_refund_id");
        assertAskedOnce("stripe", "refund", ACCOUNT_A + "/" + refundNo);
        assertAskedOnce("stripe", "refund-query", ACCOUNT_A + "/" + refundId);
    }

    @Test
    void anOrderIsClosedOnTheConnectedAccountOnly() {
        String outTradeNo = order(SHOP_B, "19.99", "USD");
        providers.subMerchantPayment("stripe", ACCOUNT_B, outTradeNo, "requires_payment_method", 1999, "usd", Ids.unique("pi_"));

        Api.closeOrder(SHOP_B, outTradeNo).then().statusCode(200);

        assertThat(Api.orderStatus(SHOP_B, outTradeNo)).isEqualTo("CLOSED");
        assertAskedOnce("stripe", "close", ACCOUNT_B + "/" + outTradeNo);
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
