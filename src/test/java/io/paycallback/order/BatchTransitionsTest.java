package io.paycallback.order;

import io.opentelemetry.api.OpenTelemetry;
import io.paycallback.db.LostRaces;
import io.paycallback.inbox.CallbackTable;
import io.paycallback.inbox.StoredCallbacks;
import io.paycallback.lease.BatchTransactions;
import io.paycallback.lease.RowLease;
import io.paycallback.lease.LeaseConfig;
import io.paycallback.lease.LeaseHandler;
import io.paycallback.lease.LeaseProcessor;
import io.paycallback.lease.LeasedTableRegistry;
import io.paycallback.lease.LeaseStatements;
import io.paycallback.lease.ProcessingMetrics;
import io.paycallback.lease.Scanner;
import io.paycallback.lease.Worker;
import io.paycallback.outbox.Outbox;
import io.paycallback.testsupport.Api;
import io.paycallback.testsupport.Db;
import io.paycallback.testsupport.Ids;
import io.paycallback.tracing.Tracing;
import io.quarkus.arc.All;
import io.quarkus.test.junit.QuarkusTest;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.SqlConnection;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Transitions tried in batches: every row gets the outcome it would get alone, whatever else is in its batch, and a
 * batch that cannot commit loses and doubles nothing.
 */
@QuarkusTest
class BatchTransitionsTest {

    private static final Duration LEASE = Duration.ofSeconds(60);

    @Inject
    Pool pool;
    @Inject
    LeaseStatements leases;
    @Inject
    LeaseProcessor processor;
    @Inject
    Scanner scanner;
    @Inject
    StoredCallbacks callbacks;
    @Inject
    PaymentTransition payments;
    @Inject
    Outbox outbox;
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

    @BeforeEach
    void setUp() {
        db = new Db(pool);
    }

    private String newOrder(String amount) {
        String outTradeNo = Ids.unique("ORD");
        Api.createOrder(outTradeNo, amount, "CNY").then().statusCode(201);
        return outTradeNo;
    }

    /** A payment stored with no lease, as the scanner would find it. */
    private long stored(String outTradeNo, String amount) {
        String transactionId = Ids.unique("42000");
        db.update("""
                INSERT INTO pay_callback_log (merchant_id, channel, channel_trade_no, out_trade_no, trade_state, amount,
                    currency, status, retry_count, next_retry_at, raw_body, created_at, updated_at)
                VALUES ('default', 'wxpay', ?, ?, 'SUCCESS', ?, 'CNY', 0, 0, NOW(3), '', NOW(3), NOW(3))""",
                transactionId, outTradeNo, new BigDecimal(amount));
        return db.first("SELECT id FROM pay_callback_log WHERE channel = 'wxpay' AND channel_trade_no = ?", transactionId)
                .getLong("id");
    }

    private RowLease lease(long id) {
        return leases.leaseOne(CallbackTable.PAYMENT.leased(), id, LEASE).await().indefinitely().orElseThrow();
    }

    private void makeDue(long id) {
        db.update("UPDATE pay_callback_log SET next_retry_at = DATE_SUB(NOW(3), INTERVAL 1 SECOND) WHERE id = ?", id);
    }

    private Row row(long id) {
        return db.first("SELECT status, retry_count, last_error, lease_token, updated_at FROM pay_callback_log WHERE id = ?", id);
    }

    private List<String> events(long id) {
        List<String> types = new ArrayList<>();
        for (Row event : db.rows("SELECT type FROM outbox WHERE source = ? ORDER BY type", "pay:" + id)) {
            types.add(event.getString("type"));
        }
        return types;
    }

    @Test
    void aMixedBatchGivesEveryRowItsOwnOutcome() {
        String paidOrder = newOrder("1.00");
        long paid = stored(paidOrder, "1.00");

        String replayedOrder = newOrder("2.00");
        long replayed = stored(replayedOrder, "2.00");
        processor.process(lease(replayed));
        db.update("UPDATE pay_callback_log SET status = 0, next_retry_at = NOW(3) WHERE id = ?", replayed);

        String twiceOrder = newOrder("3.00");
        processor.process(lease(stored(twiceOrder, "3.00")));
        long second = stored(twiceOrder, "3.00");

        String closedOrder = newOrder("4.00");
        Api.closeOrder(closedOrder).then().statusCode(200);
        long afterClose = stored(closedOrder, "4.00");

        String mismatchOrder = newOrder("5.00");
        long mismatch = stored(mismatchOrder, "0.05");

        long unknown = stored(Ids.unique("ORD"), "6.00");

        String takenOverOrder = newOrder("7.00");
        long takenOver = stored(takenOverOrder, "7.00");
        RowLease stale = lease(takenOver);
        makeDue(takenOver);
        RowLease current = lease(takenOver);

        List<RowLease> batch = List.of(lease(paid), lease(replayed), lease(second), lease(afterClose), lease(mismatch),
                lease(unknown), stale);
        processor.process(batch);

        assertThat(row(paid).getInteger("status")).isEqualTo(1);
        assertThat(Api.orderStatus(paidOrder)).isEqualTo("PAID");
        assertThat(events(paid)).containsExactly("order.paid");

        assertThat(row(replayed).getInteger("status")).isEqualTo(1);
        assertThat(events(replayed)).containsExactly("order.paid");

        assertThat(row(second).getInteger("status")).isEqualTo(1);
        assertThat(events(second)).containsExactly("alert", "refund.requested");
        assertThat(db.first("SELECT reason FROM refunds WHERE refund_no = ?", "RFP" + second).getString("reason"))
                .isEqualTo("paid_twice");

        assertThat(row(afterClose).getInteger("status")).isEqualTo(1);
        assertThat(Api.orderStatus(closedOrder)).isEqualTo("CLOSED");
        assertThat(db.first("SELECT reason FROM refunds WHERE refund_no = ?", "RFP" + afterClose).getString("reason"))
                .isEqualTo("paid_after_close");

        Row dead = row(mismatch);
        assertThat(dead.getInteger("status")).isEqualTo(2);
        assertThat(dead.getString("last_error")).contains("amount mismatch");
        assertThat(events(mismatch)).containsExactly("alert");
        assertThat(Api.orderStatus(mismatchOrder)).isEqualTo("PENDING");

        Row retried = row(unknown);
        assertThat(retried.getInteger("status")).isZero();
        assertThat(retried.getInteger("retry_count")).isEqualTo(1);
        assertThat(retried.getString("last_error")).contains("unknown");
        assertThat(events(unknown)).isEmpty();

        Row untouched = row(takenOver);
        assertThat(untouched.getInteger("status")).isZero();
        assertThat(untouched.getInteger("retry_count")).isZero();
        assertThat(untouched.getString("lease_token")).isEqualTo(current.token());
        assertThat(Api.orderStatus(takenOverOrder)).isEqualTo("PENDING");
        assertThat(events(takenOver)).isEmpty();
    }

    @Test
    void aBatchWithoutFailuresCommitsOnceAndFinishesWithOneStatement() {
        List<Long> ids = new ArrayList<>();
        List<String> orders = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            String outTradeNo = newOrder("1.00");
            orders.add(outTradeNo);
            ids.add(stored(outTradeNo, "1.00"));
        }
        processor.process(ids.stream().map(this::lease).toList());

        Set<Object> finishedAt = new HashSet<>();
        for (long id : ids) {
            Row row = row(id);
            assertThat(row.getInteger("status")).isEqualTo(1);
            finishedAt.add(row.getLocalDateTime("updated_at"));
        }
        assertThat(finishedAt).as("one fenced statement finished them all, at one NOW(3)").hasSize(1);
        orders.forEach(outTradeNo -> assertThat(Api.orderStatus(outTradeNo)).isEqualTo("PAID"));
        assertThat(db.count("SELECT COUNT(DISTINCT created_at) FROM outbox WHERE source IN ("
                + ids.stream().map(id -> "'pay:" + id + "'").collect(Collectors.joining(", ")) + ")"))
                .as("one multi-row INSERT wrote their events").isEqualTo(1);
    }

    @Test
    void twoPaymentsOfOneOrderInOneBatchPayItOnceAndRefundTheOther() {
        String outTradeNo = newOrder("8.00");
        long first = stored(outTradeNo, "8.00");
        long second = stored(outTradeNo, "8.00");
        String otherOrder = newOrder("9.00");
        long other = stored(otherOrder, "9.00");

        processor.process(List.of(lease(first), lease(second), lease(other)));

        assertThat(Api.orderStatus(outTradeNo)).isEqualTo("PAID");
        assertThat(Api.orderStatus(otherOrder)).isEqualTo("PAID");
        assertThat(events(first)).containsExactly("order.paid");
        assertThat(events(second)).containsExactly("alert", "refund.requested");
        assertThat(events(other)).containsExactly("order.paid");
        List.of(first, second, other).forEach(id -> assertThat(row(id).getInteger("status")).isEqualTo(1));
    }

    /** The pool, except that the first {@code failing} transactions fail where they would commit, and roll back. */
    private Pool failingCommits(int failing, AtomicInteger failed) {
        return new Pool(pool.getDelegate()) {
            @Override
            public <T> Uni<T> withTransaction(Function<SqlConnection, Uni<T>> function) {
                return super.withTransaction(connection -> function.apply(connection).chain(result ->
                        failed.getAndIncrement() < failing
                                ? Uni.createFrom().<T>failure(new IllegalStateException("commit failed"))
                                : Uni.createFrom().item(result)));
            }
        };
    }

    private LeaseProcessor processorWith(Pool transactions) {
        BatchTransactions batches = new BatchTransactions(transactions, leases, lostRaces, config);
        List<LeaseHandler> mine = new ArrayList<>();
        for (LeaseHandler handler : handlers) {
            mine.add(handler.table().equals(CallbackTable.PAYMENT.leased())
                    ? new PaymentCallbacks(batches, outbox, callbacks, payments, new Tracing(OpenTelemetry.noop(), true)) : handler);
        }
        return new LeaseProcessor(pool, leases, new LeasedTableRegistry(mine), metrics, lostRaces, config);
    }

    @Test
    void aBatchWhoseCommitFailsIsTriedRowByRowAndEveryRowTakesEffectOnce() {
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            ids.add(stored(newOrder("1.00"), "1.00"));
        }
        AtomicInteger failed = new AtomicInteger();
        processorWith(failingCommits(1, failed)).process(ids.stream().map(this::lease).toList());

        assertThat(failed).as("the batch, then each row alone").hasValue(1 + ids.size());
        for (long id : ids) {
            assertThat(row(id).getInteger("status")).isEqualTo(1);
            assertThat(events(id)).containsExactly("order.paid");
        }
    }

    @Test
    void whenNoCommitSucceedsEveryRowIsRetriedWithNothingWritten() {
        List<String> orders = new ArrayList<>();
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            String outTradeNo = newOrder("1.00");
            orders.add(outTradeNo);
            ids.add(stored(outTradeNo, "1.00"));
        }
        processorWith(failingCommits(1 + ids.size(), new AtomicInteger())).process(ids.stream().map(this::lease).toList());

        for (long id : ids) {
            Row row = row(id);
            assertThat(row.getInteger("status")).isZero();
            assertThat(row.getInteger("retry_count")).isEqualTo(1);
            assertThat(row.getString("last_error")).contains("commit failed");
            assertThat(events(id)).isEmpty();
        }
        orders.forEach(outTradeNo -> assertThat(Api.orderStatus(outTradeNo)).isEqualTo("PENDING"));

        ids.forEach(this::makeDue);
        processor.process(ids.stream().map(this::lease).toList());
        for (long id : ids) {
            assertThat(row(id).getInteger("status")).isEqualTo(1);
            assertThat(events(id)).containsExactly("order.paid");
        }
        orders.forEach(outTradeNo -> assertThat(Api.orderStatus(outTradeNo)).isEqualTo("PAID"));
    }

    @Test
    void twoWorkerSetsDrainingOneTableInBatchesOfFiftyGiveOneEffectPerOrder() throws Exception {
        assertThat(processor.batchSize(CallbackTable.PAYMENT.leased())).isEqualTo(50);
        LeaseStatements otherLeases = new LeaseStatements(pool);
        LeaseProcessor otherProcessor = new LeaseProcessor(pool, otherLeases, new LeasedTableRegistry(handlers), metrics, lostRaces, config);
        Worker otherWorker = new Worker(otherProcessor, otherLeases, config);
        Scanner otherScanner = new Scanner(otherLeases, new LeasedTableRegistry(handlers), otherWorker, config);
        try {
            Map<Long, String> orderOf = new HashMap<>();
            for (int i = 0; i < 300; i++) {
                String outTradeNo = Ids.unique("ORD");
                db.update("""
                        INSERT INTO orders (merchant_id, out_trade_no, amount, currency, status, refunded_amount, created_at,
                            updated_at) VALUES ('default', ?, 1.00, 'CNY', 'PENDING', 0, NOW(3), NOW(3))""", outTradeNo);
                orderOf.put(stored(outTradeNo, "1.00"), outTradeNo);
            }
            ExecutorService both = Executors.newFixedThreadPool(2);
            try {
                Future<?> mine = both.submit(() -> repeat(5, () -> scanner.drain(CallbackTable.PAYMENT.leased())));
                Future<?> theirs = both.submit(() -> repeat(5, () -> otherScanner.drain(CallbackTable.PAYMENT.leased())));
                mine.get();
                theirs.get();
            } finally {
                both.shutdownNow();
            }
            // Two batches can meet in a deadlock; the loser's rows come back a second later (a lost lock contest), so
            // what is left is drained once they are due: the claim is one effect per order, not how fast.
            await().atMost(Duration.ofSeconds(20)).until(() -> {
                scanner.drain(CallbackTable.PAYMENT.leased());
                return orderOf.keySet().stream().allMatch(id -> row(id).getInteger("status") == 1);
            });
            for (Map.Entry<Long, String> payment : orderOf.entrySet()) {
                assertThat(row(payment.getKey()).getInteger("status")).isEqualTo(1);
                assertThat(Api.orderStatus(payment.getValue())).isEqualTo("PAID");
                assertThat(events(payment.getKey())).containsExactly("order.paid");
            }
        } finally {
            otherWorker.stop();
        }
    }

    private static void repeat(int times, Runnable task) {
        for (int i = 0; i < times; i++) {
            task.run();
        }
    }
}
