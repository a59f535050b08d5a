package io.paycallback.platform;

import io.paycallback.inbox.CallbackTable;
import io.paycallback.lease.Scanner;
import io.paycallback.order.Refunds;
import io.paycallback.orderquery.OrderQueries;
import io.paycallback.orderquery.OrderQueryHandler;
import io.paycallback.testsupport.AgainstFakeProviders;
import io.paycallback.testsupport.Api;
import io.paycallback.testsupport.Concurrently;
import io.paycallback.testsupport.Ids;
import io.paycallback.testsupport.Send;
import io.paycallback.testsupport.SignedCallback;
import jakarta.inject.Inject;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** What the platform suites share: sub-merchants' orders, their pushes, queries and the checks of one effect each. */
abstract class AgainstPlatforms extends AgainstFakeProviders {

    @Inject
    Scanner scanner;
    @Inject
    OrderQueryHandler reconciler;

    static String order(String merchantId, String amount, String currency) {
        String outTradeNo = Ids.unique("PF");
        Api.createOrder(merchantId, outTradeNo, amount, currency).then().statusCode(201);
        return outTradeNo;
    }

    /** An order older than {@code paycallback.reconcile.after}, still PENDING: the next query round asks about it. */
    String agedOrder(String merchantId, String amount, String currency) {
        String outTradeNo = order(merchantId, amount, currency);
        db.update("UPDATE orders SET created_at = DATE_SUB(NOW(3), INTERVAL 2 HOUR) WHERE merchant_id = ? AND out_trade_no = ?",
                merchantId, outTradeNo);
        return outTradeNo;
    }

    /** Enrol, ask, and process what the answers stored. */
    void queryRound() {
        reconciler.enrol();
        scanner.drain(OrderQueries.TABLE);
        scanner.drain(CallbackTable.PAYMENT.leased());
    }

    /** The same callback pushed four times at once to {@code path}: each push is answered 200. */
    static void pushedAtOnce(String path, SignedCallback callback) throws Exception {
        assertThat(Concurrently.times(4, () -> Send.post(path, callback).statusCode())).containsOnly(200);
    }

    /** The merchant's order PAID by one stored payment of its own, with one {@code order.paid}. */
    void assertPaidOnce(String merchantId, String outTradeNo, String tradeNo) {
        await().atMost(WAIT).until(() -> "PAID".equals(Api.orderStatus(merchantId, outTradeNo)));
        assertThat(db.rows("SELECT merchant_id FROM pay_callback_log WHERE channel_trade_no = ?", tradeNo))
                .singleElement().satisfies(row -> assertThat(row.getString("merchant_id")).isEqualTo(merchantId));
        await().atMost(WAIT).until(() -> paidEvents(merchantId, outTradeNo) == 1);
    }

    long paidEvents(String merchantId, String outTradeNo) {
        return db.count("SELECT COUNT(DISTINCT source) FROM outbox WHERE type = 'order.paid' AND merchant_id = ?"
                + " AND out_trade_no = ?", merchantId, outTradeNo);
    }

    /** One request of the operation for the key (a sub-merchant's: {@code <sub-merchant>/key}), its signature verified. */
    void assertAskedOnce(String provider, String operation, String key) {
        assertThat(providers.requestsFor(provider, operation, key)).singleElement()
                .satisfies(line -> assertThat(line).contains(" verified "));
    }

    /** The merchant's refund of that number, final as {@code status}. */
    void assertRefundOf(String merchantId, String refundNo, String status) {
        awaitRefundStatus(refundNo, status);
        assertThat(db.first("SELECT merchant_id FROM refunds WHERE refund_no = ?", refundNo).getString("merchant_id"))
                .isEqualTo(merchantId);
    }

    /** The refund of a payment that paid an order paid already (paid twice), once it is REQUESTED. */
    String refundOfSecondPayment(String tradeNo) {
        String refundNo = "RFP" + db.first("SELECT id FROM pay_callback_log WHERE channel_trade_no = ?", tradeNo).getLong("id");
        awaitRefundStatus(refundNo, "REQUESTED");
        return refundNo;
    }

    /**
     * Submits the refund while the provider answers it accepted but not final, then asks about it once the provider
     * says it is done, and processes the answer.
     */
    void submittedThenQueried(String provider, String refundNo) {
        providers.mode(provider, "refund-pending");
        scanner.drain(Refunds.SUBMISSIONS);
        awaitRefundStatus(refundNo, "SUBMITTED");
        providers.mode(provider, "ok");
        db.update("UPDATE refund_submissions SET next_retry_at = DATE_SUB(NOW(3), INTERVAL 1 SECOND) WHERE refund_no = ?", refundNo);
        scanner.drain(Refunds.SUBMISSIONS);
        scanner.drain(CallbackTable.REFUND.leased());
    }

    /** Nothing stored of the trade, and the notice held in quarantine under the platform's id for that reason. */
    void assertHeld(String channel, String platformId, String tradeNo, String reason) {
        assertThat(db.count("SELECT COUNT(*) FROM pay_callback_log WHERE channel_trade_no = ?", tradeNo)).isZero();
        assertThat(db.count("SELECT COUNT(*) FROM quarantine WHERE channel = ? AND merchant_id = ? AND reason = ?",
                channel, platformId, reason)).isPositive();
    }
}
