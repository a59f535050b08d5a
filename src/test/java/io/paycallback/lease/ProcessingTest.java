package io.paycallback.lease;

import io.paycallback.db.LostRaces;
import io.paycallback.inbox.CallbackTable;
import io.paycallback.lease.RowLease;
import io.paycallback.lease.LeaseLostException;
import io.paycallback.lease.LeasedTable;
import io.paycallback.lease.LeaseStatements;
import io.paycallback.outbox.Outbox;
import io.paycallback.testsupport.Api;
import io.paycallback.testsupport.Concurrently;
import io.paycallback.testsupport.Db;
import io.paycallback.testsupport.EventSink;
import io.paycallback.testsupport.Ids;
import io.paycallback.testsupport.ProviderKeys;
import io.paycallback.testsupport.ProviderSigner;
import io.paycallback.testsupport.Send;
import io.paycallback.testsupport.SignedCallback;
import io.quarkus.arc.All;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import jakarta.inject.Inject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

@QuarkusTest
class ProcessingTest {

    private static final Duration WAIT = Duration.ofSeconds(20);

    @Inject
    Pool pool;
    @Inject
    Scanner scanner;
    @Inject
    LeaseStatements leases;
    @Inject
    LeaseProcessor processor;
    @Inject
    @All
    List<LeaseHandler> handlers;
    @Inject
    ProcessingMetrics metrics;
    @Inject
    LostRaces lostRaces;
    @Inject
    LeaseConfig config;

    private Db db;
    private ProviderSigner signer;
    private final EventSink sink = new EventSink();

    @BeforeEach
    void setUp() {
        db = new Db(pool);
        signer = new ProviderSigner(ProviderKeys.fromConfig());
        sink.reset();
    }

    @AfterEach
    void sinkBackToNormal() {
        sink.answer(200);
    }

    private String newOrder(String amount) {
        String outTradeNo = Ids.unique("ORD");
        Api.createOrder(outTradeNo, amount, "CNY").then().statusCode(201);
        return outTradeNo;
    }

    private long pay(String outTradeNo, String transactionId, long fen) {
        Send.payment(signer.wxPayment(outTradeNo, transactionId, fen, "SUCCESS", Instant.now())).then().statusCode(200);
        return db.first("SELECT id FROM pay_callback_log WHERE channel = 'wxpay' AND channel_trade_no = ?", transactionId)
                .getLong("id");
    }

    private Row row(LeasedTable table, long id) {
        return db.first("SELECT status, retry_count, last_error, lease_token, "
                + "TIMESTAMPDIFF(MICROSECOND, updated_at, next_retry_at) AS delay_micros FROM " + table.table()
                + " WHERE id = ?", id);
    }

    private void awaitStatus(LeasedTable table, long id, int status) {
        await().atMost(WAIT).until(() -> row(table, id).getInteger("status") == status);
    }

    private void awaitFailures(LeasedTable table, long id, int failures) {
        await().atMost(WAIT).until(() -> row(table, id).getInteger("retry_count") >= failures);
    }

    /** Time passes: the row's next try is due now. */
    private void makeDue(LeasedTable table, long id) {
        db.update("UPDATE " + table.table() + " SET next_retry_at = DATE_SUB(NOW(3), INTERVAL 1 SECOND) WHERE id = ?", id);
    }

    private List<String> awaitDeliveries(String source, int count) {
        await().atMost(WAIT).until(() -> sink.receivedFor(source).size() >= count);
        return sink.receivedFor(source);
    }

    private long outboxRows(String source, String type) {
        return db.count("SELECT COUNT(*) FROM outbox WHERE source = ? AND type = ?", source, type);
    }

    /** A reserved payment whose hand-off was lost: only the scanner (or a test) will ever lease it. */
    private long reservedWithoutHandOff(String outTradeNo, String transactionId, String amount) {
        db.update("""
                INSERT INTO pay_callback_log (merchant_id, channel, channel_trade_no, out_trade_no, trade_state, amount,
                    currency, status, retry_count, next_retry_at, raw_body, created_at, updated_at)
                VALUES ('default', 'wxpay', ?, ?, 'SUCCESS', ?, 'CNY', 0, 0, NOW(3), '', NOW(3), NOW(3))""",
                transactionId, outTradeNo, new BigDecimal(amount));
        return db.first("SELECT id FROM pay_callback_log WHERE channel = 'wxpay' AND channel_trade_no = ?", transactionId)
                .getLong("id");
    }

    @Test
    void paidCallbackMovesTheOrderToPaidAndDeliversOrderPaidOnce() {
        String outTradeNo = newOrder("88.00");
        String transactionId = Ids.unique("42000");
        long id = pay(outTradeNo, transactionId, 8800);

        awaitStatus(CallbackTable.PAYMENT.leased(), id, 1);
        assertThat(Api.orderStatus(outTradeNo)).isEqualTo("PAID");
        assertThat(Api.order(outTradeNo).jsonPath().getString("channelTradeNo")).isEqualTo(transactionId);
        assertThat(awaitDeliveries("pay:" + id, 1)).containsExactly("pay:" + id + ":order.paid:sink order.paid");

        pay(outTradeNo, transactionId, 8800);
        assertThat(outboxRows("pay:" + id, "order.paid")).isEqualTo(1);
        assertThat(sink.receivedFor("pay:" + id)).hasSize(1);
    }

    @Test
    void replayOfAProcessedPaymentIsADuplicateWithNoSecondEffect() {
        String outTradeNo = newOrder("10.00");
        long id = pay(outTradeNo, Ids.unique("42000"), 1000);
        awaitStatus(CallbackTable.PAYMENT.leased(), id, 1);
        awaitDeliveries("pay:" + id, 1);

        db.update("UPDATE pay_callback_log SET status = 0, next_retry_at = DATE_SUB(NOW(3), INTERVAL 1 SECOND) WHERE id = ?", id);
        scanner.drain(CallbackTable.PAYMENT.leased());

        assertThat(row(CallbackTable.PAYMENT.leased(), id).getInteger("status")).isEqualTo(1);
        assertThat(outboxRows("pay:" + id, "order.paid")).isEqualTo(1);
        assertThat(Api.orderStatus(outTradeNo)).isEqualTo("PAID");
    }

    @Test
    void aSecondPaymentOfAPaidOrderIsRefundedAndAlerted() {
        String outTradeNo = newOrder("5.00");
        String first = Ids.unique("42000");
        long firstId = pay(outTradeNo, first, 500);
        awaitStatus(CallbackTable.PAYMENT.leased(), firstId, 1);

        long secondId = pay(outTradeNo, Ids.unique("42000"), 500);
        awaitStatus(CallbackTable.PAYMENT.leased(), secondId, 1);

        Row refund = db.first("SELECT status, reason, amount FROM refunds WHERE refund_no = ?", "RFP" + secondId);
        assertThat(refund.getString("status")).isEqualTo("REQUESTED");
        assertThat(refund.getString("reason")).isEqualTo("paid_twice");
        assertThat(awaitDeliveries("pay:" + secondId, 2)).containsExactlyInAnyOrder(
                "pay:" + secondId + ":refund.requested:sink refund.requested", "pay:" + secondId + ":alert:sink alert");
        assertThat(outboxRows("pay:" + secondId, "order.paid")).isZero();
        assertThat(Api.order(outTradeNo).jsonPath().getString("channelTradeNo")).isEqualTo(first);
    }

    @Test
    void aPaymentAfterCloseIsRefundedAndAlerted() {
        String outTradeNo = newOrder("5.00");
        Api.closeOrder(outTradeNo).then().statusCode(200);
        Api.closeOrder(outTradeNo).then().statusCode(409);

        long id = pay(outTradeNo, Ids.unique("42000"), 500);
        awaitStatus(CallbackTable.PAYMENT.leased(), id, 1);

        assertThat(db.first("SELECT reason FROM refunds WHERE refund_no = ?", "RFP" + id).getString("reason"))
                .isEqualTo("paid_after_close");
        assertThat(awaitDeliveries("pay:" + id, 2)).hasSize(2);
        assertThat(Api.orderStatus(outTradeNo)).isEqualTo("CLOSED");
    }

    @Test
    void anAmountMismatchIsDeadAtOnceWithOneAlert() {
        String outTradeNo = newOrder("88.00");
        long id = pay(outTradeNo, Ids.unique("42000"), 1);

        awaitStatus(CallbackTable.PAYMENT.leased(), id, 2);
        assertThat(row(CallbackTable.PAYMENT.leased(), id).getString("last_error")).contains("amount mismatch");
        assertThat(awaitDeliveries("pay:" + id, 1)).containsExactly("pay:" + id + ":alert:sink alert");
        assertThat(Api.orderStatus(outTradeNo)).isEqualTo("PENDING");
    }

    @Test
    void aCurrencyMismatchIsDeadAtOnce() {
        String outTradeNo = newOrder("19.99");
        String paymentIntent = Ids.unique("pi_");
        Send.payment(signer.stripePayment(outTradeNo, paymentIntent, 1999, "usd", Instant.now())).then().statusCode(200);
        long id = db.first("SELECT id FROM pay_callback_log WHERE channel_trade_no = ?", paymentIntent).getLong("id");

        awaitStatus(CallbackTable.PAYMENT.leased(), id, 2);
        assertThat(row(CallbackTable.PAYMENT.leased(), id).getString("last_error")).contains("USD");
        assertThat(Api.orderStatus(outTradeNo)).isEqualTo("PENDING");
    }

    @Test
    void aPaymentForAnUnknownOrderSucceedsOnALaterTryOnceTheOrderExists() {
        String outTradeNo = Ids.unique("ORD");
        long id = pay(outTradeNo, Ids.unique("42000"), 300);
        awaitFailures(CallbackTable.PAYMENT.leased(), id, 1);
        assertThat(row(CallbackTable.PAYMENT.leased(), id).getInteger("status")).isZero();

        Api.createOrder(outTradeNo, "3.00", "CNY").then().statusCode(201);
        makeDue(CallbackTable.PAYMENT.leased(), id);
        scanner.drain(CallbackTable.PAYMENT.leased());

        assertThat(row(CallbackTable.PAYMENT.leased(), id).getInteger("status")).isEqualTo(1);
        assertThat(Api.orderStatus(outTradeNo)).isEqualTo("PAID");
    }

    @Test
    void aFailingTransitionWalksTheBackoffAndIsDeadAfterTheLastWithOneAlert() {
        long id = pay(Ids.unique("ORD"), Ids.unique("42000"), 300);
        awaitFailures(CallbackTable.PAYMENT.leased(), id, 1);
        List<Duration> backoff = config.backoff();
        assertThat(row(CallbackTable.PAYMENT.leased(), id).getLong("delay_micros")).isEqualTo(backoff.get(0).toNanos() / 1000);

        for (int failures = 1; failures <= backoff.size(); failures++) {
            makeDue(CallbackTable.PAYMENT.leased(), id);
            scanner.drain(CallbackTable.PAYMENT.leased());
            Row row = row(CallbackTable.PAYMENT.leased(), id);
            assertThat(row.getInteger("retry_count")).isEqualTo(failures + 1);
            if (failures < backoff.size()) {
                assertThat(row.getInteger("status")).isZero();
                assertThat(row.getLong("delay_micros")).isEqualTo(backoff.get(failures).toNanos() / 1000);
            } else {
                assertThat(row.getInteger("status")).isEqualTo(2);
                assertThat(row.getString("last_error")).contains("is unknown");
            }
        }
        assertThat(outboxRows("pay:" + id, "alert")).isEqualTo(1);
        assertThat(awaitDeliveries("pay:" + id, 1)).containsExactly("pay:" + id + ":alert:sink alert");

        makeDue(CallbackTable.PAYMENT.leased(), id);
        scanner.drain(CallbackTable.PAYMENT.leased());
        assertThat(row(CallbackTable.PAYMENT.leased(), id).getInteger("retry_count")).isEqualTo(backoff.size() + 1);
        assertThat(outboxRows("pay:" + id, "alert")).isEqualTo(1);
    }

    @Test
    void aWorkerWhoseLeaseWasTakenOverChangesNothing() {
        String outTradeNo = newOrder("1.00");
        long id = reservedWithoutHandOff(outTradeNo, Ids.unique("42000"), "1.00");
        RowLease stale = leases.leaseOne(CallbackTable.PAYMENT.leased(), id, Duration.ofSeconds(60)).await().indefinitely().orElseThrow();
        assertThat(leases.leaseOne(CallbackTable.PAYMENT.leased(), id, Duration.ofSeconds(60)).await().indefinitely()).isEmpty();

        makeDue(CallbackTable.PAYMENT.leased(), id);
        RowLease current = leases.leaseOne(CallbackTable.PAYMENT.leased(), id, Duration.ofSeconds(60)).await().indefinitely().orElseThrow();

        assertThat(processor.process(stale)).isEmpty();
        assertThatThrownBy(() -> leases.reschedule(pool, stale, Duration.ofSeconds(10), "late").await().indefinitely())
                .isInstanceOf(LeaseLostException.class);
        assertThatThrownBy(() -> pool.withTransaction(tx -> leases.bury(tx, stale, "late")).await().indefinitely())
                .isInstanceOf(LeaseLostException.class);
        Row row = row(CallbackTable.PAYMENT.leased(), id);
        assertThat(row.getInteger("status")).isZero();
        assertThat(row.getInteger("retry_count")).isZero();
        assertThat(row.getString("lease_token")).isEqualTo(current.token());
        assertThat(Api.orderStatus(outTradeNo)).isEqualTo("PENDING");
        assertThat(outboxRows("pay:" + id, "order.paid")).isZero();

        processor.process(current);
        assertThat(row(CallbackTable.PAYMENT.leased(), id).getInteger("status")).isEqualTo(1);
        assertThat(Api.orderStatus(outTradeNo)).isEqualTo("PAID");
        assertThat(outboxRows("pay:" + id, "order.paid")).isEqualTo(1);
    }

    @Test
    void aTransitionAbandonedAfterItsLeaseIsCompletedOnceByTheNextScanAfterExpiry() {
        String outTradeNo = newOrder("2.00");
        long id = reservedWithoutHandOff(outTradeNo, Ids.unique("42000"), "2.00");
        Optional<RowLease> abandoned = leases.leaseOne(CallbackTable.PAYMENT.leased(), id, Duration.ofSeconds(60)).await().indefinitely();
        assertThat(abandoned).isPresent();

        scanner.drain(CallbackTable.PAYMENT.leased());
        assertThat(row(CallbackTable.PAYMENT.leased(), id).getInteger("status")).isZero();

        makeDue(CallbackTable.PAYMENT.leased(), id);
        scanner.drain(CallbackTable.PAYMENT.leased());

        assertThat(row(CallbackTable.PAYMENT.leased(), id).getInteger("status")).isEqualTo(1);
        assertThat(Api.orderStatus(outTradeNo)).isEqualTo("PAID");
        assertThat(awaitDeliveries("pay:" + id, 1)).hasSize(1);
        assertThat(processor.process(abandoned.get())).isEmpty();
        assertThat(outboxRows("pay:" + id, "order.paid")).isEqualTo(1);
    }

    @Test
    void hundredConcurrentIdenticalCallbacksDeliverExactlyOneOrderPaid() throws Exception {
        String outTradeNo = newOrder("66.00");
        String transactionId = Ids.unique("42000");
        SignedCallback callback = signer.wxPayment(outTradeNo, transactionId, 6600, "SUCCESS", Instant.now());

        List<Integer> statuses = Concurrently.times(100, () -> Send.payment(callback).statusCode());

        assertThat(statuses).containsOnly(200);
        long id = db.first("SELECT id FROM pay_callback_log WHERE channel_trade_no = ?", transactionId).getLong("id");
        awaitStatus(CallbackTable.PAYMENT.leased(), id, 1);
        assertThat(awaitDeliveries("pay:" + id, 1)).containsExactly("pay:" + id + ":order.paid:sink order.paid");
        scanner.drain(Outbox.TABLE);
        assertThat(sink.receivedFor("pay:" + id)).hasSize(1);
    }

    @Test
    void twoIndependentWorkerSetsOnOneDatabaseProduceOneEffectPerPayment() throws Exception {
        LeaseStatements otherLeases = new LeaseStatements(pool);
        LeaseProcessor otherProcessor = new LeaseProcessor(pool, otherLeases, new LeasedTableRegistry(handlers), metrics, lostRaces, config);
        Worker otherWorker = new Worker(otherProcessor, otherLeases, config);
        Scanner otherScanner = new Scanner(otherLeases, new LeasedTableRegistry(handlers), otherWorker, config);
        try {
            List<String> orders = new ArrayList<>();
            List<SignedCallback> callbacks = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                String outTradeNo = newOrder("1.00");
                orders.add(outTradeNo);
                SignedCallback callback = signer.wxPayment(outTradeNo, Ids.unique("42000"), 100, "SUCCESS", Instant.now());
                for (int copy = 0; copy < 5; copy++) {
                    callbacks.add(callback);
                }
            }
            ExecutorService scanners = Executors.newFixedThreadPool(2);
            try {
                Future<?> mine = scanners.submit(() -> repeat(10, () -> scanner.drain(CallbackTable.PAYMENT.leased())));
                Future<?> theirs = scanners.submit(() -> repeat(10, () -> otherScanner.drain(CallbackTable.PAYMENT.leased())));
                List<Integer> statuses = Concurrently.each(callbacks, callback -> Send.payment(callback).statusCode());
                assertThat(statuses).hasSize(100).containsOnly(200);
                mine.get();
                theirs.get();
            } finally {
                scanners.shutdownNow();
            }
            // Two instances' batches may meet in a deadlock; the loser's rows come back due a second later, for the
            // next scan, which the scheduler (off in tests) would run: drain until each order is PAID.
            for (String outTradeNo : orders) {
                await().atMost(WAIT).until(() -> {
                    scanner.drain(CallbackTable.PAYMENT.leased());
                    return "PAID".equals(Api.orderStatus(outTradeNo));
                });
                long id = db.first("SELECT id FROM pay_callback_log WHERE out_trade_no = ?", outTradeNo).getLong("id");
                assertThat(db.count("SELECT COUNT(*) FROM pay_callback_log WHERE out_trade_no = ?", outTradeNo)).isEqualTo(1);
                assertThat(outboxRows("pay:" + id, "order.paid")).isEqualTo(1);
                assertThat(awaitDeliveries("pay:" + id, 1)).hasSize(1);
            }
        } finally {
            otherWorker.stop();
        }
    }

    @Test
    void anEventIsRetriedWhileTheSinkIsDownAndDeliveredOnceWhenItIsBack() {
        sink.answer(503);
        String outTradeNo = newOrder("4.00");
        long payId = pay(outTradeNo, Ids.unique("42000"), 400);
        awaitStatus(CallbackTable.PAYMENT.leased(), payId, 1);
        long eventId = db.first("SELECT id FROM outbox WHERE source = ? AND type = 'order.paid'", "pay:" + payId).getLong("id");
        awaitFailures(Outbox.TABLE, eventId, 1);
        makeDue(Outbox.TABLE, eventId);
        scanner.drain(Outbox.TABLE);
        assertThat(row(Outbox.TABLE, eventId).getInteger("retry_count")).isEqualTo(2);
        assertThat(row(Outbox.TABLE, eventId).getString("last_error")).contains("503");

        sink.answer(200);
        makeDue(Outbox.TABLE, eventId);
        scanner.drain(Outbox.TABLE);

        assertThat(row(Outbox.TABLE, eventId).getInteger("status")).isEqualTo(1);
        assertThat(sink.receivedFor("pay:" + payId)).containsExactly("pay:" + payId + ":order.paid:sink order.paid");
    }

    @Test
    void anEventTheSinkRefusesForeverIsDeadWithAnAlert() {
        sink.answer(500);
        String outTradeNo = newOrder("4.00");
        long payId = pay(outTradeNo, Ids.unique("42000"), 400);
        awaitStatus(CallbackTable.PAYMENT.leased(), payId, 1);
        long eventId = db.first("SELECT id FROM outbox WHERE source = ? AND type = 'order.paid'", "pay:" + payId).getLong("id");
        awaitFailures(Outbox.TABLE, eventId, 1);

        for (int tries = 0; tries < config.backoff().size() && row(Outbox.TABLE, eventId).getInteger("status") == 0; tries++) {
            makeDue(Outbox.TABLE, eventId);
            scanner.drain(Outbox.TABLE);
        }

        assertThat(row(Outbox.TABLE, eventId).getInteger("status")).isEqualTo(2);
        assertThat(row(Outbox.TABLE, eventId).getInteger("retry_count")).isEqualTo(config.backoff().size() + 1);
        assertThat(outboxRows("outbox:" + eventId, "alert")).isEqualTo(1);
        sink.answer(200);
        long alertId = db.first("SELECT id FROM outbox WHERE source = ?", "outbox:" + eventId).getLong("id");
        // The alert's writer hands it to a worker at once; let that try end (refused, or delivered) before time passes,
        // or its reschedule could land after makeDue and hide the row from the drain.
        await().atMost(WAIT).until(() -> row(Outbox.TABLE, alertId).getInteger("retry_count") >= 1
                || row(Outbox.TABLE, alertId).getInteger("status") == 1);
        makeDue(Outbox.TABLE, alertId);
        scanner.drain(Outbox.TABLE);
        assertThat(sink.receivedFor("outbox:" + eventId)).containsExactly("outbox:" + eventId + ":alert:sink alert");
    }

    @Test
    void aFullRefundOfTheOrdersOwnPaymentMakesItRefunded() {
        String outTradeNo = newOrder("88.00");
        String transactionId = Ids.unique("42000");
        long payId = pay(outTradeNo, transactionId, 8800);
        awaitStatus(CallbackTable.PAYMENT.leased(), payId, 1);

        String partialNo = Ids.unique("RF");
        Send.refund(signer.wxRefund(outTradeNo, transactionId, partialNo, Ids.unique("5030"), 5000, "SUCCESS", Instant.now()))
                .then().statusCode(200);
        awaitRefundSettled(partialNo);
        assertThat(Api.orderStatus(outTradeNo)).isEqualTo("PAID");

        String restNo = Ids.unique("RF");
        Send.refund(signer.wxRefund(outTradeNo, transactionId, restNo, Ids.unique("5030"), 3800, "SUCCESS", Instant.now()))
                .then().statusCode(200);
        awaitRefundSettled(restNo);
        assertThat(Api.orderStatus(outTradeNo)).isEqualTo("REFUNDED");
        assertThat(Api.order(outTradeNo).jsonPath().getString("refundedAmount")).isEqualTo("88.00");
        assertThat(db.first("SELECT status FROM refunds WHERE refund_no = ?", restNo).getString("status")).isEqualTo("SUCCEEDED");
    }

    @Test
    void theRefundOfASecondPaymentSettlesOurRequestAndLeavesTheOrderPaid() {
        String outTradeNo = newOrder("5.00");
        long firstId = pay(outTradeNo, Ids.unique("42000"), 500);
        awaitStatus(CallbackTable.PAYMENT.leased(), firstId, 1);
        String second = Ids.unique("42000");
        long secondId = pay(outTradeNo, second, 500);
        awaitStatus(CallbackTable.PAYMENT.leased(), secondId, 1);

        String refundNo = "RFP" + secondId;
        Send.refund(signer.wxRefund(outTradeNo, second, refundNo, Ids.unique("5030"), 500, "SUCCESS", Instant.now()))
                .then().statusCode(200);
        awaitRefundSettled(refundNo);

        assertThat(db.first("SELECT status, channel_refund_id FROM refunds WHERE refund_no = ?", refundNo).getString("status"))
                .isEqualTo("SUCCEEDED");
        assertThat(Api.orderStatus(outTradeNo)).isEqualTo("PAID");
        long refundLogId = db.first("SELECT id FROM refund_callback_log WHERE refund_no = ?", refundNo).getLong("id");
        assertThat(awaitDeliveries("refund:" + refundLogId, 1))
                .containsExactly("refund:" + refundLogId + ":refund.succeeded:sink refund.succeeded");
    }

    @Test
    void aRefundThatArrivesBeforeItsPaymentIsProcessedRetries() {
        String outTradeNo = Ids.unique("ORD");
        String transactionId = Ids.unique("42000");
        String refundNo = Ids.unique("RF");
        Send.refund(signer.wxRefund(outTradeNo, transactionId, refundNo, Ids.unique("5030"), 100, "SUCCESS", Instant.now()))
                .then().statusCode(200);
        long refundLogId = db.first("SELECT id FROM refund_callback_log WHERE refund_no = ?", refundNo).getLong("id");
        awaitFailures(CallbackTable.REFUND.leased(), refundLogId, 1);
        assertThat(row(CallbackTable.REFUND.leased(), refundLogId).getString("last_error")).contains("not processed yet");

        Api.createOrder(outTradeNo, "1.00", "CNY").then().statusCode(201);
        long payId = pay(outTradeNo, transactionId, 100);
        awaitStatus(CallbackTable.PAYMENT.leased(), payId, 1);
        makeDue(CallbackTable.REFUND.leased(), refundLogId);
        scanner.drain(CallbackTable.REFUND.leased());

        assertThat(row(CallbackTable.REFUND.leased(), refundLogId).getInteger("status")).isEqualTo(1);
        assertThat(Api.orderStatus(outTradeNo)).isEqualTo("REFUNDED");
    }

    private void awaitRefundSettled(String refundNo) {
        await().atMost(WAIT).until(() -> db.count(
                "SELECT COUNT(*) FROM refund_callback_log WHERE refund_no = ? AND status = 1", refundNo) == 1);
    }

    private static void repeat(int times, Runnable task) {
        for (int i = 0; i < times; i++) {
            task.run();
        }
    }
}
