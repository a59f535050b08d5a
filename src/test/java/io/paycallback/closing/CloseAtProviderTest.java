package io.paycallback.closing;

import io.paycallback.db.LostRaces;
import io.paycallback.lease.LeaseConfig;
import io.paycallback.lease.LeaseHandler;
import io.paycallback.lease.LeaseProcessor;
import io.paycallback.lease.LeasedTableRegistry;
import io.paycallback.lease.LeaseStatements;
import io.paycallback.lease.ProcessingMetrics;
import io.paycallback.lease.Scanner;
import io.paycallback.lease.Worker;
import io.paycallback.ops.OrderTimeline;
import io.paycallback.testsupport.AgainstFakeProviders;
import io.paycallback.testsupport.Api;
import io.paycallback.testsupport.Concurrently;
import io.paycallback.testsupport.Ids;
import io.paycallback.testsupport.Send;
import io.quarkus.arc.All;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import io.vertx.mutiny.sqlclient.Row;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Closing an order at its providers before here, against the fake provider APIs that check our signatures and sign
 * their answers. The test merchant has API keys for all three providers, so every close asks all three.
 */
@QuarkusTest
class CloseAtProviderTest extends AgainstFakeProviders {

    @Inject
    Scanner scanner;
    @Inject
    LeaseStatements leases;
    @Inject
    @All
    List<LeaseHandler> handlers;
    @Inject
    ProcessingMetrics metrics;
    @Inject
    LostRaces lostRaces;
    @Inject
    LeaseConfig config;
    @Inject
    OrderTimeline timeline;
    @Inject
    OrderClosing closing;

    @Test
    void closedAtEveryProviderIsClosedAndALaterPaymentIsPaidAfterCloseAsBefore() {
        String outTradeNo = newOrder("50.00", "CNY");
        String tradeNo = Ids.unique("2026");
        providers.payment("alipay", outTradeNo, "WAIT_BUYER_PAY", 5000, "CNY", tradeNo);

        Response closed = Api.closeOrder(outTradeNo);
        closed.then().statusCode(200);
        assertThat(closed.jsonPath().getString("status")).isEqualTo("CLOSED");
        assertThat(closed.jsonPath().getString("closedAt")).isEqualTo("providers");
        assertThat(providers.requestsFor("wxpay", "close", outTradeNo)).singleElement()
                .satisfies(line -> assertThat(line).contains(" verified "));
        assertThat(providers.requestsFor("alipay", "close", outTradeNo)).singleElement()
                .satisfies(line -> assertThat(line).contains(" verified "));
        assertThat(providers.requestsFor("stripe", "query", outTradeNo)).hasSize(1);
        assertThat(closeRow(outTradeNo).getString("outcome")).isEqualTo("closed");
        assertThat(Api.orderStatus(outTradeNo)).isEqualTo("CLOSED");

        Send.payment(signer.alipayPayment(outTradeNo, tradeNo, new BigDecimal("50.00"), "TRADE_SUCCESS")).then().statusCode(200);
        await().atMost(WAIT).until(() -> db.count("SELECT COUNT(*) FROM refunds WHERE out_trade_no = ? AND reason = 'paid_after_close'",
                outTradeNo) == 1);
        assertThat(Api.orderStatus(outTradeNo)).isEqualTo("CLOSED");
        assertThat(events("alert", outTradeNo)).isEqualTo(1);
    }

    @Test
    void aProviderThatSaysPaidMakesTheOrderPaidOnceAndTheCallerGets409() {
        String outTradeNo = newOrder("88.00", "CNY");
        String transactionId = Ids.unique("42000");
        providers.payment("wxpay", outTradeNo, "SUCCESS", 8800, "CNY", transactionId);

        Response refused = Api.closeOrder(outTradeNo);
        refused.then().statusCode(409);
        assertThat(refused.jsonPath().getString("status")).isEqualTo("PAID");
        assertThat(Api.orderStatus(outTradeNo)).isEqualTo("PAID");
        assertThat(db.first("SELECT origin FROM pay_callback_log WHERE channel_trade_no = ?", transactionId)
                .getString("origin")).isEqualTo("query");
        assertThat(closeRow(outTradeNo).getString("outcome")).isEqualTo("paid");
        // The provider's own callback later is a duplicate: one payment, one order.paid.
        Send.payment(signer.wxPayment(outTradeNo, transactionId, 8800, "SUCCESS", Instant.now())).then().statusCode(200);
        await().atMost(WAIT).until(() -> events("order.paid", outTradeNo) >= 1);
        assertThat(db.count("SELECT COUNT(*) FROM pay_callback_log WHERE channel_trade_no = ?", transactionId)).isEqualTo(1);
        assertThat(events("order.paid", outTradeNo)).isEqualTo(1);
        assertThat(db.count("SELECT COUNT(*) FROM refunds WHERE out_trade_no = ?", outTradeNo)).isZero();
    }

    @Test
    void aSucceededStripePaymentIntentCannotBeCancelledAndWins() {
        String outTradeNo = newOrder("19.99", "USD");
        providers.payment("stripe", outTradeNo, "succeeded", 1999, "usd", Ids.unique("pi_"));
        Api.closeOrder(outTradeNo).then().statusCode(409);
        assertThat(Api.orderStatus(outTradeNo)).isEqualTo("PAID");
        assertThat(events("order.paid", outTradeNo)).isEqualTo(1);
    }

    @Test
    void anOpenStripePaymentIntentIsCancelled() {
        String outTradeNo = newOrder("19.99", "USD");
        String paymentIntent = Ids.unique("pi_");
        providers.payment("stripe", outTradeNo, "requires_payment_method", 1999, "usd", paymentIntent);
        Api.closeOrder(outTradeNo).then().statusCode(200);
        assertThat(providers.requestsFor("stripe", "close", outTradeNo)).singleElement()
                .satisfies(line -> assertThat(line).contains(" verified "));
        assertThat(Api.orderStatus(outTradeNo)).isEqualTo("CLOSED");
    }

    @Test
    void anUnreachableProviderLeavesTheOrderClosingAndTheRetryClosesIt() {
        String outTradeNo = newOrder("8.00", "CNY");
        providers.mode("stripe", "down");

        Response accepted = Api.closeOrder(outTradeNo);
        accepted.then().statusCode(202);
        assertThat(accepted.jsonPath().getString("status")).isEqualTo("CLOSING");
        assertThat(Api.orderStatus(outTradeNo)).isEqualTo("CLOSING");
        Row request = closeRow(outTradeNo);
        assertThat(request.getInteger("status")).isZero();
        assertThat(request.getInteger("retry_count")).isEqualTo(1);
        assertThat(request.getString("last_error")).contains("stripe").contains("503");
        // A second close while CLOSING asks nobody again.
        Api.closeOrder(outTradeNo).then().statusCode(202);
        assertThat(providers.requestsFor("wxpay", "close", outTradeNo)).hasSize(1);

        providers.mode("stripe", "ok");
        makeDue(outTradeNo);
        scanner.drain(CloseRequests.TABLE);
        assertThat(Api.orderStatus(outTradeNo)).isEqualTo("CLOSED");
        assertThat(closeRow(outTradeNo).getInteger("status")).isEqualTo(1);
        assertThat(providers.requestsFor("wxpay", "close", outTradeNo)).hasSize(2);
    }

    @Test
    void aPaymentArrivingWhileClosingMakesThePaidOrderAndEndsTheCloseRequest() {
        String outTradeNo = newOrder("6.00", "CNY");
        providers.mode("alipay", "down");
        Api.closeOrder(outTradeNo).then().statusCode(202);

        String transactionId = Ids.unique("42000");
        Send.payment(signer.wxPayment(outTradeNo, transactionId, 600, "SUCCESS", Instant.now())).then().statusCode(200);
        await().atMost(WAIT).until(() -> "PAID".equals(Api.orderStatus(outTradeNo)));
        assertThat(events("order.paid", outTradeNo)).isEqualTo(1);

        providers.mode("alipay", "ok");
        makeDue(outTradeNo);
        scanner.drain(CloseRequests.TABLE);
        Row request = closeRow(outTradeNo);
        assertThat(request.getInteger("status")).isEqualTo(1);
        assertThat(request.getString("outcome")).isEqualTo("paid");
        assertThat(providers.requestsFor("wxpay", "close", outTradeNo)).hasSize(1);
        assertThat(Api.orderStatus(outTradeNo)).isEqualTo("PAID");
        assertThat(db.count("SELECT COUNT(*) FROM refunds WHERE out_trade_no = ?", outTradeNo)).isZero();
    }

    @Test
    void twoInstancesMakeOneCloseCallPerTry() throws Exception {
        List<String> orders = new ArrayList<>();
        providers.mode("stripe", "down");
        for (int i = 0; i < 6; i++) {
            String outTradeNo = newOrder("1.00", "CNY");
            Api.closeOrder(outTradeNo).then().statusCode(202);
            orders.add(outTradeNo);
        }
        providers.mode("stripe", "ok");
        orders.forEach(this::makeDue);
        Worker otherWorker = new Worker(new LeaseProcessor(pool, leases, new LeasedTableRegistry(handlers), metrics, lostRaces, config), leases, config);
        Scanner otherInstance = new Scanner(leases, new LeasedTableRegistry(handlers), otherWorker, config);
        try {
            List<Callable<Integer>> instances = List.of(() -> scanner.drain(CloseRequests.TABLE),
                    () -> otherInstance.drain(CloseRequests.TABLE));
            Concurrently.all(instances);
        } finally {
            otherWorker.stop();
        }
        for (String outTradeNo : orders) {
            assertThat(Api.orderStatus(outTradeNo)).as(outTradeNo).isEqualTo("CLOSED");
            // The first try, then exactly one retry: never two instances on one try.
            assertThat(providers.requestsFor("wxpay", "close", outTradeNo)).as(outTradeNo).hasSize(2);
            assertThat(providers.requestsFor("alipay", "close", outTradeNo)).as(outTradeNo).hasSize(2);
            assertThat(closeRow(outTradeNo).getInteger("retry_count")).isEqualTo(1);
        }
    }

    @Test
    void twoCallersClosingAtOnceMakeOneCloseCall() throws Exception {
        String outTradeNo = newOrder("2.00", "CNY");
        List<Integer> statuses = Concurrently.times(2, () -> Api.closeOrder(outTradeNo).statusCode());
        assertThat(statuses).contains(200);
        assertThat(statuses).containsAnyOf(202, 409);
        assertThat(providers.requestsFor("wxpay", "close", outTradeNo)).hasSize(1);
        assertThat(Api.orderStatus(outTradeNo)).isEqualTo("CLOSED");
    }

    @Test
    void anAlipayTradeNeverCreatedIsClosedHere() {
        String outTradeNo = newOrder("3.00", "CNY");
        Api.closeOrder(outTradeNo).then().statusCode(200);
        assertThat(db.first("SELECT answer FROM provider_calls WHERE out_trade_no = ? AND channel = 'alipay'", outTradeNo)
                .getString("answer")).isEqualTo("ACQ.TRADE_NOT_EXIST");
        assertThat(Api.orderStatus(outTradeNo)).isEqualTo("CLOSED");
    }

    @Test
    void aMerchantWithoutProviderKeysClosesHereOnlyAndIsToldSo() {
        String outTradeNo = Ids.unique("ORD");
        Api.authorized().contentType("application/json")
                .body("{\"merchantId\":\"nokeys\",\"outTradeNo\":\"" + outTradeNo + "\",\"amount\":\"1.00\",\"currency\":\"CNY\"}")
                .post("/internal/orders").then().statusCode(201);
        Response closed = Api.authorized().queryParam("merchantId", "nokeys").post("/internal/orders/" + outTradeNo + "/close");
        closed.then().statusCode(200);
        assertThat(closed.jsonPath().getString("closedAt")).isEqualTo("here-only");
        assertThat(providers.requests()).noneMatch(line -> line.contains(outTradeNo));
        assertThat(db.count("SELECT COUNT(*) FROM close_requests WHERE out_trade_no = ?", outTradeNo)).isZero();
    }

    @Test
    void aCloseNeverAnsweredIsADeadLetterAfterTheLastTryAndTheOrderStaysClosing() {
        String outTradeNo = newOrder("4.00", "CNY");
        providers.mode("stripe", "down");
        Api.closeOrder(outTradeNo).then().statusCode(202);
        for (int round = 0; round < 10 && closeRow(outTradeNo).getInteger("status") == 0; round++) {
            makeDue(outTradeNo);
            scanner.drain(CloseRequests.TABLE);
        }
        Row request = closeRow(outTradeNo);
        assertThat(request.getInteger("status")).isEqualTo(2);
        assertThat(Api.orderStatus(outTradeNo)).isEqualTo("CLOSING");
        long id = db.first("SELECT id FROM close_requests WHERE out_trade_no = ?", outTradeNo).getLong("id");
        assertThat(db.rows("SELECT payload FROM outbox WHERE type = 'alert' AND source = ?", "close:" + id))
                .singleElement().satisfies(row -> assertThat(row.getString("payload")).contains("stays CLOSING"));

        // The operator requeues it once the provider is back: audited, and the next try closes the order.
        providers.mode("stripe", "ok");
        Api.as(Api.ALICE_TOKEN).post("/admin/close-requests/" + id + "/requeue").then().statusCode(202);
        await().atMost(WAIT).until(() -> "CLOSED".equals(Api.orderStatus(outTradeNo)));
        assertThat(db.first("SELECT actor, action FROM audit_log WHERE target = ?", "close_requests#" + id).getString("actor"))
                .isEqualTo("alice");
    }

    @Test
    void everyCloseCallAndStateChangeIsOnTheOrdersTimeline() {
        String outTradeNo = newOrder("7.00", "CNY");
        providers.mode("stripe", "down");
        Api.closeOrder(outTradeNo).then().statusCode(202);
        providers.mode("stripe", "ok");
        makeDue(outTradeNo);
        scanner.drain(CloseRequests.TABLE);

        List<String> changes = timeline.read("default", outTradeNo).await().atMost(WAIT).changes().stream()
                .map(change -> change.what()).toList();
        assertThat(changes).anyMatch(line -> line.startsWith("CLOSING: close asked by "));
        assertThat(changes).filteredOn(line -> line.startsWith("stripe close: failed")).hasSize(1);
        assertThat(changes).filteredOn(line -> line.startsWith("wxpay close: 204")).hasSize(2);
        assertThat(changes).contains("close request ended: closed", "CLOSED");
    }

    @Test
    void expiredPendingOrdersAreClosedAtTheProvidersToo() {
        String outTradeNo = newOrder("9.00", "CNY");
        db.update("UPDATE orders SET created_at = DATE_SUB(NOW(3), INTERVAL 40 DAY) WHERE out_trade_no = ?", outTradeNo);
        assertThat(closing.expire()).isPositive();
        await().atMost(WAIT).until(() -> "CLOSED".equals(Api.orderStatus(outTradeNo)));
        assertThat(closeRow(outTradeNo).getString("requested_by")).isEqualTo(OrderClosing.EXPIRY);
        assertThat(providers.requestsFor("wxpay", "close", outTradeNo)).hasSize(1);
    }

    // ---- helpers ----

    private Row closeRow(String outTradeNo) {
        return db.first("SELECT status, retry_count, last_error, outcome, requested_by FROM close_requests WHERE out_trade_no = ?",
                outTradeNo);
    }

    private void makeDue(String outTradeNo) {
        db.update("UPDATE close_requests SET next_retry_at = DATE_SUB(NOW(3), INTERVAL 1 SECOND) WHERE out_trade_no = ?",
                outTradeNo);
    }
}
