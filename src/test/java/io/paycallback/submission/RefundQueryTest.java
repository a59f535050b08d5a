package io.paycallback.submission;

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

import java.time.Instant;
import java.util.List;
import java.util.concurrent.Callable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Refunds we only learn of from a pending notice (a refund made in the provider's dashboard) get the same status queries
 * as ours: settled once by the query or the final notice, whichever comes first; an answer for another amount is a
 * dead letter; a refund still not final after the last query raises an alert.
 */
@QuarkusTest
class RefundQueryTest extends AgainstFakeProviders {

    @Inject
    Scanner scanner;

    @Test
    void aStripeRefundLearnedOnlyFromAPendingNoticeSettlesByQueryOnce() {
        Paid paid = paidByStripe("19.99", 1999);
        String refundId = Ids.unique("re_");
        Send.refund(signer.stripeRefund(paid.outTradeNo(), paid.paymentIntent(), refundId, 1999, "usd", "pending", Instant.now()))
                .then().statusCode(200);
        awaitEnrolled(refundId);
        assertThat(db.first("SELECT status, reason FROM refunds WHERE refund_no = ?", refundId).getString("status"))
                .isEqualTo("SUBMITTED");
        assertThat(db.count("SELECT COUNT(*) FROM refund_callback_log WHERE refund_no = ?", refundId)).isZero();
        providers.refundAnswer("stripe", refundId, stripeRefund(refundId, paid, 1999, "succeeded"));

        scanner.drain(Refunds.SUBMISSIONS);
        assertThat(submissionRow(refundId).getInteger("status")).isEqualTo(1);
        scanner.drain(CallbackTable.REFUND.leased());
        awaitRefundStatus(refundId, "SUCCEEDED");
        assertThat(Api.orderStatus(paid.outTradeNo())).isEqualTo("REFUNDED");
        assertThat(providers.requestsFor("stripe", "refund-query", refundId)).singleElement()
                .satisfies(line -> assertThat(line).contains(" verified "));

        // Stripe's final notice comes later, under the same key: nothing counted again.
        Send.refund(signer.stripeRefund(paid.outTradeNo(), paid.paymentIntent(), refundId, 1999, "usd", "succeeded", Instant.now()))
                .then().statusCode(200);
        assertThat(db.count("SELECT COUNT(*) FROM refund_callback_log WHERE refund_no = ?", refundId)).isEqualTo(1);
        assertThat(events("refund.succeeded", paid.outTradeNo())).isEqualTo(1);
        assertThat(db.count("SELECT COUNT(*) FROM provider_calls WHERE subject = ? AND operation = 'refund-query'", refundId))
                .isEqualTo(1);
    }

    @Test
    void aWechatRefundLearnedOnlyFromAProcessingNoticeSettlesByQuery() {
        DashboardRefund refund = processingWechatRefund();
        awaitEnrolled(refund.outRefundNo());
        refundSucceedsAtWechat(refund);

        scanner.drain(Refunds.SUBMISSIONS);
        scanner.drain(CallbackTable.REFUND.leased());
        awaitRefundStatus(refund.outRefundNo(), "SUCCEEDED");
        assertThat(db.first("SELECT refunded_amount FROM orders WHERE out_trade_no = ?", refund.outTradeNo())
                .getBigDecimal("refunded_amount")).isEqualByComparingTo("10.00");
        assertThat(Api.orderStatus(refund.outTradeNo())).isEqualTo("PAID");
    }

    @Test
    void theFinalNoticeAndTheQueryAnswerRacingSettleTheRefundOnce() throws Exception {
        for (int attempt = 0; attempt < 3; attempt++) {
            Paid paid = paidByStripe("5.00", 500);
            String refundId = Ids.unique("re_");
            Send.refund(signer.stripeRefund(paid.outTradeNo(), paid.paymentIntent(), refundId, 500, "usd", "pending", Instant.now()))
                    .then().statusCode(200);
            awaitEnrolled(refundId);
            providers.refundAnswer("stripe", refundId, stripeRefund(refundId, paid, 500, "succeeded"));
            List<Callable<Integer>> racers = List.of(
                    () -> Send.refund(signer.stripeRefund(paid.outTradeNo(), paid.paymentIntent(), refundId, 500, "usd",
                            "succeeded", Instant.now())).statusCode(),
                    () -> scanner.drain(Refunds.SUBMISSIONS));
            Concurrently.all(racers);
            scanner.drain(CallbackTable.REFUND.leased());
            awaitRefundStatus(refundId, "SUCCEEDED");
            await().atMost(WAIT).until(() -> events("refund.succeeded", paid.outTradeNo()) >= 1);
            assertThat(db.count("SELECT COUNT(*) FROM refund_callback_log WHERE refund_no = ?", refundId)).isEqualTo(1);
            assertThat(events("refund.succeeded", paid.outTradeNo())).isEqualTo(1);
            assertThat(db.first("SELECT refunded_amount FROM orders WHERE out_trade_no = ?", paid.outTradeNo())
                    .getBigDecimal("refunded_amount")).isEqualByComparingTo("5.00");
        }
    }

    @Test
    void aQueryAnswerForAnotherAmountIsADeadLetterAndChangesNoMoney() {
        Paid paid = paidByStripe("19.99", 1999);
        String refundId = Ids.unique("re_");
        Send.refund(signer.stripeRefund(paid.outTradeNo(), paid.paymentIntent(), refundId, 1000, "usd", "pending", Instant.now()))
                .then().statusCode(200);
        awaitEnrolled(refundId);
        providers.refundAnswer("stripe", refundId, stripeRefund(refundId, paid, 1999, "succeeded"));

        scanner.drain(Refunds.SUBMISSIONS);
        Row submission = submissionRow(refundId);
        assertThat(submission.getInteger("status")).isEqualTo(2);
        assertThat(submission.getString("last_error")).contains("amount mismatch");
        assertThat(db.count("SELECT COUNT(*) FROM refund_callback_log WHERE refund_no = ?", refundId)).isZero();
        assertThat(db.first("SELECT status FROM refunds WHERE refund_no = ?", refundId).getString("status")).isEqualTo("SUBMITTED");
        assertThat(Api.orderStatus(paid.outTradeNo())).isEqualTo("PAID");
        assertThat(db.rows("SELECT payload FROM outbox WHERE type = 'alert' AND source = ?", "submission:" + submission.getLong("id")))
                .singleElement().satisfies(row -> assertThat(row.getString("payload")).contains("amount mismatch"));
    }

    @Test
    void aRefundStillNotFinalAfterTheLastQueryRaisesAnAlert() {
        Paid paid = paidByStripe("3.00", 300);
        String refundId = Ids.unique("re_");
        Send.refund(signer.stripeRefund(paid.outTradeNo(), paid.paymentIntent(), refundId, 300, "usd", "pending", Instant.now()))
                .then().statusCode(200);
        awaitEnrolled(refundId);
        providers.refundAnswer("stripe", refundId, stripeRefund(refundId, paid, 300, "pending"));
        providers.mode("stripe", "refund-pending");

        Row submission = queriedUntilGivenUp(refundId);
        assertThat(submission.getInteger("status")).isEqualTo(2);
        assertThat(db.rows("SELECT payload FROM outbox WHERE type = 'alert' AND source = ?", "submission:" + submission.getLong("id")))
                .singleElement().satisfies(row -> assertThat(row.getString("payload")).contains("still not final after 7 queries"));
        // Every query is on the order's timeline.
        assertThat(db.count("SELECT COUNT(*) FROM provider_calls WHERE subject = ? AND operation = 'refund-query'", refundId))
                .isEqualTo(7);
    }

    @Test
    void anOperatorRequeuesARefundGivenUpOnAndTheNextQuerySettlesIt() {
        Paid paid = paidByStripe("4.00", 400);
        String refundId = Ids.unique("re_");
        Send.refund(signer.stripeRefund(paid.outTradeNo(), paid.paymentIntent(), refundId, 400, "usd", "pending", Instant.now()))
                .then().statusCode(200);
        awaitEnrolled(refundId);
        providers.refundAnswer("stripe", refundId, stripeRefund(refundId, paid, 400, "pending"));
        providers.mode("stripe", "refund-pending");
        long id = queriedUntilGivenUp(refundId).getLong("id");

        // The refund succeeded at the provider meanwhile; the requeued row is handed to a worker at once.
        providers.mode("stripe", "ok");
        Api.as(Api.ALICE_TOKEN).post("/admin/refund-submissions/" + id + "/requeue").then().statusCode(202);
        await().atMost(WAIT).until(() -> submissionRow(refundId).getInteger("status") == 1);
        scanner.drain(CallbackTable.REFUND.leased());
        awaitRefundStatus(refundId, "SUCCEEDED");
        Api.as(Api.ALICE_TOKEN).post("/admin/refund-submissions/" + id + "/requeue").then().statusCode(409);
        assertThat(db.count("SELECT COUNT(*) FROM audit_log WHERE action = 'requeue' AND target = ?",
                "refund_submissions#" + id)).isEqualTo(1);
    }

    // ---- helpers ----

    /** Drains the refund's submission row, each round due at once, until the last query gave up on it. */
    private Row queriedUntilGivenUp(String refundId) {
        scanner.drain(Refunds.SUBMISSIONS);
        for (int round = 0; round < 10 && submissionRow(refundId).getInteger("status") == 0; round++) {
            db.update("UPDATE refund_submissions SET next_retry_at = DATE_SUB(NOW(3), INTERVAL 1 SECOND) WHERE refund_no = ?", refundId);
            scanner.drain(Refunds.SUBMISSIONS);
        }
        Row submission = submissionRow(refundId);
        assertThat(submission.getInteger("status")).isEqualTo(2);
        return submission;
    }

    private record Paid(String outTradeNo, String paymentIntent) {
    }

    private Paid paidByStripe(String amount, long minor) {
        String outTradeNo = newOrder(amount, "USD");
        String paymentIntent = Ids.unique("pi_");
        Send.payment(signer.stripePayment(outTradeNo, paymentIntent, minor, "usd", Instant.now())).then().statusCode(200);
        await().atMost(WAIT).until(() -> "PAID".equals(Api.orderStatus(outTradeNo)));
        return new Paid(outTradeNo, paymentIntent);
    }

    private static String stripeRefund(String refundId, Paid paid, long minor, String status) {
        return """
                {"id":"%s","object":"refund","amount":%d,"charge":"ch_1","created":1764729700,"currency":"usd",\
                "metadata":{"out_trade_no":"%s"},"payment_intent":"%s","reason":"requested_by_customer","status":"%s"}"""
                .formatted(refundId, minor, paid.outTradeNo(), paid.paymentIntent(), status);
    }

    /** A pending notice is stored at once and enrolled by a worker right after: wait for that. */
    private void awaitEnrolled(String refundNo) {
        await().atMost(WAIT).until(() -> db.count(
                "SELECT COUNT(*) FROM refund_pending_log WHERE refund_no = ? AND status IN (1, 3)", refundNo) == 1);
    }

    private Row submissionRow(String refundNo) {
        return db.first("SELECT id, status, retry_count, last_error FROM refund_submissions WHERE refund_no = ?", refundNo);
    }
}
