package io.paycallback.orderquery;

import io.paycallback.inbox.CallbackTable;
import io.paycallback.lease.Scanner;
import io.paycallback.order.Refunds;
import io.paycallback.testsupport.AgainstFakeProviders;
import io.paycallback.testsupport.Api;
import io.paycallback.testsupport.Concurrently;
import io.paycallback.testsupport.Ids;
import io.paycallback.testsupport.Send;
import io.quarkus.test.junit.QuarkusTest;
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
 * Both loops with the providers, against fake provider APIs that check our request signatures and sign their answers:
 * the query of a PENDING order whose callback never came, and the submission of a refund we decided on.
 */
@QuarkusTest
class ProviderLoopTest extends AgainstFakeProviders {

    @Inject
    Scanner scanner;
    @Inject
    OrderQueryHandler reconciler;

    // ---- queries ----

    @Test
    void aWechatQueryFindsAPaidOrderAndALateCallbackIsADuplicate() {
        String outTradeNo = agedOrder("88.00", "CNY");
        String transactionId = Ids.unique("42000");
        providers.payment("wxpay", outTradeNo, "SUCCESS", 8800, "CNY", transactionId);

        queryRound();

        assertThat(Api.orderStatus(outTradeNo)).isEqualTo("PAID");
        assertThat(db.first("SELECT origin FROM pay_callback_log WHERE channel_trade_no = ?", transactionId)
                .getString("origin")).isEqualTo("query");
        assertThat(providers.requestsFor("wxpay", "query", outTradeNo)).singleElement()
                .satisfies(line -> assertThat(line).contains(" verified "));
        assertThat(queryRow(outTradeNo).getInteger("status")).isEqualTo(1);

        Send.payment(signer.wxPayment(outTradeNo, transactionId, 8800, "SUCCESS", Instant.now())).then().statusCode(200);
        assertThat(db.count("SELECT COUNT(*) FROM pay_callback_log WHERE channel_trade_no = ?", transactionId)).isEqualTo(1);
        assertThat(paidEvents(outTradeNo)).isEqualTo(1);
    }

    @Test
    void anAlipayOrderNotPaidYetIsAskedAgainOnTheScheduleAndFoundPaidLater() {
        String outTradeNo = agedOrder("12.50", "CNY");
        String tradeNo = Ids.unique("2026120322001");
        providers.payment("alipay", outTradeNo, "WAIT_BUYER_PAY", 1250, "CNY", tradeNo);

        queryRound();
        Row query = queryRow(outTradeNo);
        assertThat(Api.orderStatus(outTradeNo)).isEqualTo("PENDING");
        assertThat(query.getInteger("status")).isZero();
        assertThat(query.getInteger("retry_count")).isEqualTo(1);
        assertThat(query.getString("last_error")).contains("alipay WAIT_BUYER_PAY").contains("wxpay ORDER_NOT_EXIST");
        assertThat(query.getLong("delay_seconds")).isBetween(290L, 310L);

        providers.payment("alipay", outTradeNo, "TRADE_SUCCESS", 1250, "CNY", tradeNo);
        makeDue(outTradeNo);
        queryRound();
        assertThat(Api.orderStatus(outTradeNo)).isEqualTo("PAID");
        assertThat(paidEvents(outTradeNo)).isEqualTo(1);
    }

    @Test
    void aStripeQueryFindsThePaymentIntentByOurOrderNumber() {
        String outTradeNo = agedOrder("19.99", "USD");
        providers.payment("stripe", outTradeNo, "succeeded", 1999, "usd", Ids.unique("pi_"));
        queryRound();
        assertThat(Api.orderStatus(outTradeNo)).isEqualTo("PAID");
    }

    @Test
    void anAnswerWithABadSignatureChangesNothingAndIsAskedAgain() {
        String outTradeNo = agedOrder("88.00", "CNY");
        providers.payment("wxpay", outTradeNo, "SUCCESS", 8800, "CNY", Ids.unique("42000"));
        providers.mode("wxpay", "bad-signature");

        queryRound();
        assertThat(Api.orderStatus(outTradeNo)).isEqualTo("PENDING");
        assertThat(db.count("SELECT COUNT(*) FROM pay_callback_log WHERE out_trade_no = ?", outTradeNo)).isZero();
        assertThat(queryRow(outTradeNo).getString("last_error")).contains("bad answer");

        providers.mode("wxpay", "ok");
        makeDue(outTradeNo);
        queryRound();
        assertThat(Api.orderStatus(outTradeNo)).isEqualTo("PAID");
    }

    @Test
    void anAnswerForAnotherAmountIsADeadLetterLikeACallbacks() {
        String outTradeNo = agedOrder("88.00", "CNY");
        String transactionId = Ids.unique("42000");
        providers.payment("wxpay", outTradeNo, "SUCCESS", 100, "CNY", transactionId);
        queryRound();
        await().atMost(WAIT).until(() -> db.first("SELECT status FROM pay_callback_log WHERE channel_trade_no = ?",
                transactionId).getInteger("status") == 2);
        assertThat(Api.orderStatus(outTradeNo)).isEqualTo("PENDING");
    }

    @Test
    void anOrderStillPendingAfterTheLastScheduledQueryRaisesAnAlert() {
        String outTradeNo = agedOrder("3.00", "CNY");
        queryRound();
        for (int round = 0; round < 10 && queryRow(outTradeNo).getInteger("status") == 0; round++) {
            makeDue(outTradeNo);
            scanner.drain(OrderQueries.TABLE);
        }
        Row query = queryRow(outTradeNo);
        assertThat(query.getInteger("status")).isEqualTo(2);
        assertThat(query.getInteger("retry_count")).isEqualTo(7);
        assertThat(db.rows("SELECT payload FROM outbox WHERE type = 'alert' AND out_trade_no = ?", outTradeNo))
                .singleElement().satisfies(row -> assertThat(row.getString("payload")).contains("still PENDING after 7 queries"));
    }

    @Test
    void aQueryAndALateCallbackRacingGiveOneEffect() throws Exception {
        for (int attempt = 0; attempt < 5; attempt++) {
            String outTradeNo = agedOrder("5.00", "CNY");
            String transactionId = Ids.unique("42000");
            providers.payment("wxpay", outTradeNo, "SUCCESS", 500, "CNY", transactionId);
            reconciler.enrol();
            List<Callable<Integer>> racers = List.of(
                    () -> Send.payment(signer.wxPayment(outTradeNo, transactionId, 500, "SUCCESS", Instant.now())).statusCode(),
                    () -> scanner.drain(OrderQueries.TABLE));
            Concurrently.all(racers);
            scanner.drain(CallbackTable.PAYMENT.leased());
            await().atMost(WAIT).until(() -> "PAID".equals(Api.orderStatus(outTradeNo)));
            assertThat(db.count("SELECT COUNT(*) FROM pay_callback_log WHERE channel_trade_no = ?", transactionId)).isEqualTo(1);
            await().atMost(WAIT).until(() -> paidEvents(outTradeNo) >= 1);
            assertThat(paidEvents(outTradeNo)).isEqualTo(1);
        }
    }

    @Test
    void twoScannersOnTheSameOrdersAskOnceEachRoundWithinTheRateLimit() throws Exception {
        List<String> orders = new ArrayList<>();
        for (int i = 0; i < 15; i++) {
            orders.add(agedOrder("1.00", "CNY"));
        }
        reconciler.enrol();
        Concurrently.times(2, () -> scanner.drain(OrderQueries.TABLE));
        List<Long> times = new ArrayList<>();
        for (String outTradeNo : orders) {
            List<String> asked = providers.requestsFor("wxpay", "query", outTradeNo);
            assertThat(asked).as(outTradeNo).hasSize(1);
            times.add(Long.parseLong(asked.get(0).substring(asked.get(0).lastIndexOf(' ') + 1)));
            assertThat(queryRow(outTradeNo).getInteger("retry_count")).isEqualTo(1);
        }
        // Five permits per one-second cycle: fifteen queries of one merchant at one provider need three cycles, so the
        // first and the last are at least one whole cycle apart.
        assertThat(times.stream().mapToLong(Long::longValue).max().orElseThrow()
                - times.stream().mapToLong(Long::longValue).min().orElseThrow()).isGreaterThanOrEqualTo(950);
    }

    // ---- refund submission ----

    @Test
    void aRefundForAPaymentMadeTwiceIsSubmittedOnceAndSettledByItsAnswerOnce() {
        String outTradeNo = newOrder("5.00", "CNY");
        payWx(outTradeNo, Ids.unique("42000"), 500);
        String second = Ids.unique("42000");
        long secondId = payWx(outTradeNo, second, 500);
        String refundNo = "RFP" + secondId;
        awaitRefundStatus(refundNo, "REQUESTED");

        scanner.drain(Refunds.SUBMISSIONS);
        assertThat(providers.requestsFor("wxpay", "refund", refundNo)).singleElement()
                .satisfies(line -> assertThat(line).contains(" verified "));
        assertThat(submissionRow(refundNo).getInteger("status")).isEqualTo(1);
        assertThat(events("refund.submitted", outTradeNo)).isEqualTo(1);

        scanner.drain(CallbackTable.REFUND.leased());
        awaitRefundStatus(refundNo, "SUCCEEDED");
        assertThat(db.first("SELECT origin FROM refund_callback_log WHERE refund_no = ?", refundNo).getString("origin"))
                .isEqualTo("submission");

        // WeChat Pay's own refund notice comes later, under the same key: nothing counted again.
        Send.refund(signer.wxRefund(outTradeNo, second, refundNo, Ids.unique("5030"), 500, 500, "SUCCESS", Instant.now()))
                .then().statusCode(200);
        assertThat(db.count("SELECT COUNT(*) FROM refund_callback_log WHERE refund_no = ?", refundNo)).isEqualTo(1);
        assertThat(events("refund.succeeded", outTradeNo)).isEqualTo(1);
        assertThat(Api.orderStatus(outTradeNo)).isEqualTo("PAID");
    }

    @Test
    void aSubmissionWhoseAnswerWasLostIsRetriedWithTheSameKeyAndRefundsOnce() {
        String outTradeNo = newOrder("5.00", "CNY");
        payWx(outTradeNo, Ids.unique("42000"), 500);
        long secondId = payWx(outTradeNo, Ids.unique("42000"), 500);
        String refundNo = "RFP" + secondId;
        awaitRefundStatus(refundNo, "REQUESTED");
        providers.mode("wxpay", "lose-answer");

        scanner.drain(Refunds.SUBMISSIONS);
        Row submission = submissionRow(refundNo);
        assertThat(submission.getInteger("status")).isZero();
        assertThat(submission.getInteger("retry_count")).isEqualTo(1);
        assertThat(submission.getString("last_error")).contains("timeout");

        db.update("UPDATE refund_submissions SET next_retry_at = DATE_SUB(NOW(3), INTERVAL 1 SECOND) WHERE refund_no = ?", refundNo);
        scanner.drain(Refunds.SUBMISSIONS);
        assertThat(providers.requestsFor("wxpay", "refund", refundNo)).hasSize(2);
        assertThat(submissionRow(refundNo).getInteger("status")).isEqualTo(1);
        scanner.drain(CallbackTable.REFUND.leased());
        awaitRefundStatus(refundNo, "SUCCEEDED");
        assertThat(events("refund.submitted", outTradeNo)).isEqualTo(1);
        assertThat(events("refund.succeeded", outTradeNo)).isEqualTo(1);
    }

    @Test
    void aRejectedSubmissionIsADeadLetterWithTheProvidersCode() {
        String outTradeNo = newOrder("50.00", "CNY");
        Api.closeOrder(outTradeNo).then().statusCode(200);
        String late = Ids.unique("2026");
        Send.payment(signer.alipayPayment(outTradeNo, late, new BigDecimal("50.00"), "TRADE_SUCCESS")).then().statusCode(200);
        long lateId = db.first("SELECT id FROM pay_callback_log WHERE channel_trade_no = ?", late).getLong("id");
        String refundNo = "RFP" + lateId;
        awaitRefundStatus(refundNo, "REQUESTED");
        providers.mode("alipay", "reject");

        scanner.drain(Refunds.SUBMISSIONS);
        Row submission = db.first("SELECT id, status, last_error FROM refund_submissions WHERE refund_no = ?", refundNo);
        assertThat(submission.getInteger("status")).isEqualTo(2);
        assertThat(submission.getString("last_error")).contains("ACQ.SELLER_BALANCE_NOT_ENOUGH");
        assertThat(db.first("SELECT status FROM refunds WHERE refund_no = ?", refundNo).getString("status")).isEqualTo("REQUESTED");
        assertThat(db.rows("SELECT payload FROM outbox WHERE type = 'alert' AND source = ?", "submission:" + submission.getLong("id")))
                .singleElement().satisfies(row -> assertThat(row.getString("payload")).contains("ACQ.SELLER_BALANCE_NOT_ENOUGH"));
    }

    @Test
    void aRefundAcceptedButNotFinalIsAskedAboutUntilItIs() {
        String outTradeNo = newOrder("19.99", "USD");
        Send.payment(signer.stripePayment(outTradeNo, Ids.unique("pi_"), 1999, "usd", Instant.now())).then().statusCode(200);
        await().atMost(WAIT).until(() -> "PAID".equals(Api.orderStatus(outTradeNo)));
        String second = Ids.unique("pi_");
        Send.payment(signer.stripePayment(outTradeNo, second, 1999, "usd", Instant.now())).then().statusCode(200);
        String refundNo = "RFP" + db.first("SELECT id FROM pay_callback_log WHERE channel_trade_no = ?", second).getLong("id");
        awaitRefundStatus(refundNo, "REQUESTED");
        providers.mode("stripe", "refund-pending");

        scanner.drain(Refunds.SUBMISSIONS);
        awaitRefundStatus(refundNo, "SUBMITTED");
        Row submission = submissionRow(refundNo);
        assertThat(submission.getInteger("status")).isZero();
        assertThat(submission.getString("last_error")).contains("awaiting");
        String refundId = db.first("SELECT channel_refund_id FROM refunds WHERE refund_no = ?", refundNo)
                .getString("channel_refund_id");
        assertThat(refundId).startsWith("re_");

        providers.mode("stripe", "ok");
        db.update("UPDATE refund_submissions SET next_retry_at = DATE_SUB(NOW(3), INTERVAL 1 SECOND) WHERE refund_no = ?", refundNo);
        scanner.drain(Refunds.SUBMISSIONS);
        assertThat(submissionRow(refundNo).getInteger("status")).isEqualTo(1);
        scanner.drain(CallbackTable.REFUND.leased());
        awaitRefundStatus(refundNo, "SUCCEEDED");
        assertThat(providers.requestsFor("stripe", "refund", refundNo)).hasSize(1);
        assertThat(providers.requestsFor("stripe", "refund-query", refundId)).hasSize(1);
        assertThat(events("refund.succeeded", outTradeNo)).isEqualTo(1);
    }

    // ---- helpers ----

    /** An order older than {@code paycallback.reconcile.after} (1 h in the test profile), still PENDING. */
    private String agedOrder(String amount, String currency) {
        String outTradeNo = newOrder(amount, currency);
        db.update("UPDATE orders SET created_at = DATE_SUB(NOW(3), INTERVAL 2 HOUR) WHERE out_trade_no = ?", outTradeNo);
        return outTradeNo;
    }

    /** Enrol, ask, and process what the answers stored (written due, for the scanner). */
    private void queryRound() {
        reconciler.enrol();
        scanner.drain(OrderQueries.TABLE);
        scanner.drain(CallbackTable.PAYMENT.leased());
    }

    private void makeDue(String outTradeNo) {
        db.update("UPDATE order_queries SET next_retry_at = DATE_SUB(NOW(3), INTERVAL 1 SECOND) WHERE out_trade_no = ?",
                outTradeNo);
    }

    private Row queryRow(String outTradeNo) {
        return db.first("SELECT status, retry_count, last_error, TIMESTAMPDIFF(SECOND, updated_at, next_retry_at) AS delay_seconds"
                + " FROM order_queries WHERE out_trade_no = ?", outTradeNo);
    }

    private Row submissionRow(String refundNo) {
        return db.first("SELECT status, retry_count, last_error FROM refund_submissions WHERE refund_no = ?", refundNo);
    }

    private long payWx(String outTradeNo, String transactionId, long fen) {
        Send.payment(signer.wxPayment(outTradeNo, transactionId, fen, "SUCCESS", Instant.now())).then().statusCode(200);
        long id = db.first("SELECT id FROM pay_callback_log WHERE channel = 'wxpay' AND channel_trade_no = ?", transactionId)
                .getLong("id");
        await().atMost(WAIT).until(() -> db.first("SELECT status FROM pay_callback_log WHERE id = ?", id).getInteger("status") == 1);
        return id;
    }

    private long paidEvents(String outTradeNo) {
        return events("order.paid", outTradeNo);
    }
}
