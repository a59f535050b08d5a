package io.paycallback.statement;

import io.paycallback.inbox.CallbackTable;
import io.paycallback.lease.Scanner;
import io.paycallback.statement.bill.BillFiles;
import io.paycallback.statement.bill.BillLine;
import io.paycallback.testsupport.Api;
import io.paycallback.testsupport.Concurrently;
import io.paycallback.testsupport.Db;
import io.paycallback.testsupport.Ids;
import io.paycallback.testsupport.ProviderKeys;
import io.paycallback.testsupport.ProviderSigner;
import io.paycallback.testsupport.Providers;
import io.paycallback.testsupport.Send;
import io.paycallback.trade.ChannelId;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import jakarta.inject.Inject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import static io.paycallback.statement.StatementLedger.noon;
import static io.paycallback.statement.StatementLedger.payment;
import static io.paycallback.statement.StatementLedger.refund;
import static io.paycallback.statement.bill.BillLine.State.FAILED;
import static io.paycallback.statement.bill.BillLine.State.REVOKED;
import static io.paycallback.statement.bill.BillLine.State.SUCCEEDED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Statement runs end to end against the fake providers, which serve bills in their exact formats (written by
 * {@link BillFiles}): fetch, read, compare, repair, and what a run records.
 */
@QuarkusTest
class StatementRunTest {

    private static final Duration WAIT = Duration.ofSeconds(20);

    @Inject
    Pool pool;
    @Inject
    Scanner scanner;
    @Inject
    StatementSchedule schedule;

    private Db db;
    private StatementLedger ledger;
    private ProviderSigner signer;
    private final Providers providers = new Providers();

    @BeforeEach
    void setUp() {
        db = new Db(pool);
        ledger = new StatementLedger(db);
        signer = new ProviderSigner(ProviderKeys.fromConfig());
        providers.reset();
    }

    @AfterEach
    void providersBackToNormal() {
        providers.reset();
    }

    @Test
    void aWechatRunComparesTheBillWithTheLedgerAndRecordsBothSidesTotals() {
        ChannelId wx = ChannelId.WXPAY;
        LocalDate date = ledger.freshDate(wx);
        String matched = Ids.unique("WM");
        String different = Ids.unique("WD");
        String revoked = Ids.unique("WR");
        String unbooked = Ids.unique("WU");
        String refunded = Ids.unique("RF");
        ledger.paid(wx, matched, "4200" + matched, "88.00", "CNY", noon(wx, date));
        ledger.paid(wx, different, "4200" + different, "10.00", "CNY", noon(wx, date));
        ledger.paid(wx, revoked, "4200" + revoked, "5.00", "CNY", noon(wx, date));
        ledger.paid(wx, unbooked, "4200" + unbooked, "7.00", "CNY", noon(wx, date));
        ledger.refunded(wx, refunded, "5030" + refunded, matched, "4200" + matched, "8.00", "CNY", noon(wx, date));
        String stranger = Ids.unique("WX");
        List<BillLine> lines = List.of(
                payment(matched, "4200" + matched, "88.00", "CNY", SUCCEEDED),
                payment(different, "4200" + different, "11.00", "CNY", SUCCEEDED),
                payment(revoked, "4200" + revoked, "5.00", "CNY", REVOKED),
                payment(stranger, "4200" + stranger, "3.00", "CNY", SUCCEEDED),
                refund(matched, "4200" + matched, refunded, "5030" + refunded, "8.00", "CNY", SUCCEEDED));
        BillFiles.WxFile file = BillFiles.wxPay(lines, BillFiles.WxOptions.standard());
        providers.bill("wxpay", date, "ok", file.gzip(), file.sha1Hex());

        Row run = runDay(wx, date);

        assertThat(run.getString("state")).isEqualTo("DIFFERENCES");
        assertThat(run.getInteger("status")).isEqualTo(1);
        assertThat(run.getString("file_digest")).isEqualTo("sha1:" + file.sha1Hex());
        assertThat(run.getLong("lines_compared")).isEqualTo(5);
        assertThat(run.getLong("bill_payment_count")).isEqualTo(4);
        assertThat(run.getBigDecimal("bill_payment_sum")).isEqualByComparingTo("107.00");
        assertThat(run.getLong("bill_refund_count")).isEqualTo(1);
        assertThat(run.getBigDecimal("bill_refund_sum")).isEqualByComparingTo("8.00");
        assertThat(run.getLong("our_payment_count")).isEqualTo(4);
        assertThat(run.getBigDecimal("our_payment_sum")).isEqualByComparingTo("110.00");
        assertThat(run.getLong("our_refund_count")).isEqualTo(1);
        assertThat(found(run)).containsExactlyInAnyOrder(
                "AMOUNT_DIFFERS PAYMENT 4200" + different + " OPEN",
                "STATE_DIFFERS PAYMENT 4200" + revoked + " OPEN",
                "NOT_REGISTERED PAYMENT 4200" + stranger + " OPEN",
                "MISSING_AT_PROVIDER PAYMENT 4200" + unbooked + " OPEN");
        assertThat(providers.requestsFor("wxpay", "bill", date.toString())).singleElement()
                .satisfies(line -> assertThat(line).contains(" verified "));
        assertThat(providers.requestsFor("wxpay", "bill-download", date.toString())).singleElement()
                .satisfies(line -> assertThat(line).contains(" verified "));
    }

    @Test
    void anAlipayRunKeysRefundsByTheirRequestNumberNotTheTradeNumber() {
        ChannelId alipay = ChannelId.ALIPAY;
        LocalDate date = ledger.freshDate(alipay);
        String order = Ids.unique("AO");
        String tradeNo = "2026" + order;
        String known = Ids.unique("RQ");
        String unknown = Ids.unique("RQ");
        ledger.paid(alipay, order, tradeNo, "50.00", "CNY", noon(alipay, date));
        ledger.refunded(alipay, known, null, order, tradeNo, "20.00", "CNY", noon(alipay, date));
        List<BillLine> lines = List.of(
                payment(order, tradeNo, "50.00", "CNY", SUCCEEDED),
                refund(order, tradeNo, known, null, "20.00", "CNY", SUCCEEDED),
                refund(order, tradeNo, unknown, null, "5.00", "CNY", SUCCEEDED));
        providers.bill("alipay", date, "ok", BillFiles.alipay(lines, BillFiles.AlipayOptions.standard()), null);

        Row run = runDay(alipay, date);

        assertThat(run.getString("file_digest")).startsWith("sha256:");
        assertThat(run.getLong("bill_refund_count")).isEqualTo(2);
        assertThat(run.getBigDecimal("bill_refund_sum")).isEqualByComparingTo("25.00");
        // The order is known, the refund is not: the provider is asked, and says it knows no such refund yet.
        assertThat(found(run)).containsExactly("MISSING_HERE REFUND " + unknown + " OPEN");
        assertThat(providers.requestsFor("alipay", "refund-query", unknown)).hasSize(1);
    }

    @Test
    void aStripeRunReadsEveryPageAndMatchesPaymentsByTheirPaymentIntent() {
        ChannelId stripe = ChannelId.STRIPE;
        LocalDate date = ledger.freshDate(stripe);
        List<BillLine> lines = new ArrayList<>();
        for (int i = 0; i < 230; i++) {
            String order = Ids.unique("SO");
            String intent = "pi_" + order;
            ledger.paid(stripe, order, intent, "19.99", "USD", noon(stripe, date));
            // Stripe does not always copy our order number onto the charge: the PaymentIntent is the key.
            lines.add(payment(i % 2 == 0 ? order : null, intent, "19.99", "USD", SUCCEEDED));
        }
        String refundNo = Ids.unique("RFP");
        String refundId = "re_" + refundNo;
        String paid = lines.get(0).providerTradeNo();
        ledger.refunded(stripe, refundNo, refundId, lines.get(0).outTradeNo(), paid, "19.99", "USD", noon(stripe, date));
        lines.add(refund(null, paid, null, refundId, "19.99", "USD", FAILED));
        providers.stripeBill(date, StatementLedger.stripe(lines));

        Row run = runDay(stripe, date);

        assertThat(run.getLong("lines_compared")).isEqualTo(231);
        assertThat(run.getLong("bill_payment_count")).isEqualTo(230);
        assertThat(run.getLong("our_payment_count")).isEqualTo(230);
        assertThat(found(run)).containsExactly("STATE_DIFFERS REFUND " + refundId + " OPEN");
        assertThat(providers.requests().stream().filter(line -> line.startsWith("stripe bill " + date))).hasSize(3);
    }

    @Test
    void aBillLineForAnOrderPendingHereIsRepairedOnceAndALateCallbackIsADuplicate() {
        ChannelId wx = ChannelId.WXPAY;
        LocalDate date = ledger.freshDate(wx);
        String outTradeNo = Ids.unique("ORD");
        Api.createOrder(outTradeNo, "66.00", "CNY").then().statusCode(201);
        String transactionId = Ids.unique("42000");
        providers.payment("wxpay", outTradeNo, "SUCCESS", 6600, "CNY", transactionId);
        BillFiles.WxFile file = BillFiles.wxPay(List.of(payment(outTradeNo, transactionId, "66.00", "CNY", SUCCEEDED)),
                BillFiles.WxOptions.standard());
        providers.bill("wxpay", date, "ok", file.gzip(), file.sha1Hex());

        Row run = runDay(wx, date);

        assertThat(found(run)).containsExactly("MISSING_HERE PAYMENT " + transactionId + " REPAIRED");
        assertThat(providers.requestsFor("wxpay", "query", outTradeNo)).hasSize(1);
        assertThat(db.first("SELECT origin FROM pay_callback_log WHERE channel_trade_no = ?", transactionId)
                .getString("origin")).isEqualTo("statement");
        scanner.drain(CallbackTable.PAYMENT.leased());
        await().atMost(WAIT).until(() -> "PAID".equals(Api.orderStatus(outTradeNo)));
        assertThat(paidEvents(outTradeNo)).isEqualTo(1);

        Send.payment(signer.wxPayment(outTradeNo, transactionId, 6600, "SUCCESS", Instant.now())).then().statusCode(200);
        scanner.drain(CallbackTable.PAYMENT.leased());
        assertThat(db.count("SELECT COUNT(*) FROM pay_callback_log WHERE channel_trade_no = ?", transactionId)).isEqualTo(1);
        assertThat(paidEvents(outTradeNo)).isEqualTo(1);
    }

    @Test
    void aTamperedDownloadFailsTheRunAndComparesNothing() {
        ChannelId wx = ChannelId.WXPAY;
        LocalDate date = ledger.freshDate(wx);
        String order = Ids.unique("WT");
        ledger.paid(wx, order, "4200" + order, "1.00", "CNY", noon(wx, date));
        BillFiles.WxFile file = BillFiles.wxPay(List.of(payment(Ids.unique("WT"), "4200" + Ids.unique("x"), "2.00", "CNY",
                SUCCEEDED)), BillFiles.WxOptions.standard());
        providers.bill("wxpay", date, "ok", file.gzip(), "0".repeat(40));

        Row run = runDay(wx, date);

        assertThat(run.getInteger("status")).isZero();
        assertThat(run.getInteger("retry_count")).isEqualTo(1);
        assertThat(run.getString("state")).isEqualTo("RETRYING");
        assertThat(run.getString("last_error")).contains("tampered");
        assertThat(run.getLong("lines_compared")).isNull();
        assertThat(db.count("SELECT COUNT(*) FROM statement_discrepancies WHERE run_id = ?", run.getLong("id"))).isZero();
        assertThat(db.count("SELECT COUNT(*) FROM statement_lines WHERE run_id = ?", run.getLong("id"))).isZero();
    }

    @Test
    void aCutFileIsIncompleteAndComparesNothing() {
        ChannelId wx = ChannelId.WXPAY;
        LocalDate date = ledger.freshDate(wx);
        BillFiles.WxFile file = BillFiles.wxPay(List.of(payment(Ids.unique("WC"), "4200" + Ids.unique("c"), "2.00", "CNY",
                SUCCEEDED)), BillFiles.WxOptions.standard().withoutSummary());
        providers.bill("wxpay", date, "ok", file.gzip(), file.sha1Hex());

        Row run = runDay(wx, date);

        assertThat(run.getString("last_error")).contains("incomplete");
        assertThat(db.count("SELECT COUNT(*) FROM statement_discrepancies WHERE run_id = ?", run.getLong("id"))).isZero();
    }

    @Test
    void aBillStillBeingMadeIsAskedForAgainWithoutCountingATry() {
        ChannelId wx = ChannelId.WXPAY;
        // Today's bill, not yesterday's: a bill still being made is asked for until the end of the day after its date
        // (China time for WeChat Pay), and in the last half hour of a day yesterday's would rightly be given up.
        LocalDate date = schedule.yesterday(wx).plusDays(1);
        db.update("DELETE d FROM statement_discrepancies d JOIN statement_runs r ON r.id = d.run_id"
                + " WHERE r.channel = 'wxpay' AND r.bill_date = ?", date);
        db.update("DELETE FROM statement_runs WHERE channel = 'wxpay' AND bill_date = ?", date);
        providers.bill("wxpay", date, "creating", new byte[0], null);

        Row run = runDay(wx, date);
        assertThat(run.getString("state")).isEqualTo("CREATING");
        assertThat(run.getInteger("status")).isZero();
        assertThat(run.getInteger("retry_count")).isZero();
        assertThat(run.getLong("delay_seconds")).isBetween(1790L, 1810L);

        BillFiles.WxFile file = BillFiles.wxPay(List.of(), BillFiles.WxOptions.standard());
        providers.bill("wxpay", date, "ok", file.gzip(), file.sha1Hex());
        db.update("UPDATE statement_runs SET next_retry_at = NOW(3) WHERE id = ?", run.getLong("id"));
        scanner.drain(StatementRuns.TABLE);
        assertThat(runRow(wx, date).getInteger("status")).isEqualTo(1);
        assertThat(providers.requestsFor("wxpay", "bill", date.toString())).hasSize(2);
    }

    @Test
    void noStatementWhileWeHoldAPaidOrderIsADiscrepancyOnceTheWindowHasPassed() {
        ChannelId wx = ChannelId.WXPAY;
        LocalDate old = ledger.freshDate(wx);
        String order = Ids.unique("WN");
        ledger.paid(wx, order, "4200" + order, "9.00", "CNY", noon(wx, old));

        Row run = runDay(wx, old);
        assertThat(run.getString("file_digest")).isEqualTo("none:NO_STATEMENT_EXIST");
        assertThat(run.getString("state")).isEqualTo("DIFFERENCES");
        assertThat(found(run)).containsExactly("MISSING_AT_PROVIDER PAYMENT 4200" + order + " OPEN");

        // Inside the window it waits: a neighbouring day's bill may still list it.
        LocalDate yesterday = schedule.yesterday(wx);
        db.update("DELETE FROM statement_runs WHERE channel = 'wxpay' AND bill_date = ?", yesterday);
        String recent = Ids.unique("WN");
        ledger.paid(wx, recent, "4200" + recent, "9.00", "CNY", noon(wx, yesterday));
        Row waiting = runDay(wx, yesterday);
        assertThat(found(waiting)).contains("MISSING_AT_PROVIDER PAYMENT 4200" + recent + " WAITING");
    }

    @Test
    void aPaymentBookedOnTheNextDayMatchesOurRowAndSettlesItsWaitingCandidate() {
        ChannelId alipay = ChannelId.ALIPAY;
        LocalDate date = ledger.freshDate(alipay);
        String order = Ids.unique("AX");
        ledger.paid(alipay, order, "2026" + order, "3.00", "CNY", noon(alipay, date).plusHours(11).plusMinutes(59));
        providers.bill("alipay", date, "none", new byte[0], null);
        providers.bill("alipay", date.plusDays(1), "ok", BillFiles.alipay(List.of(payment(order, "2026" + order, "3.00",
                "CNY", SUCCEEDED)), BillFiles.AlipayOptions.standard()), null);

        runDay(alipay, date);
        Row next = runDay(alipay, date.plusDays(1));

        assertThat(found(next)).isEmpty();
        assertThat(db.first("SELECT state, note FROM statement_discrepancies WHERE ident = ?", "2026" + order)
                .getString("note")).isEqualTo("listed in the bill of " + date.plusDays(1));
    }

    @Test
    void twoInstancesMakeOneRunPerMerchantProviderAndDate() throws Exception {
        ChannelId wx = ChannelId.WXPAY;
        LocalDate date = ledger.freshDate(wx);
        BillFiles.WxFile file = BillFiles.wxPay(List.of(payment(Ids.unique("W2"), "4200" + Ids.unique("2"), "2.00", "CNY",
                SUCCEEDED)), BillFiles.WxOptions.standard());
        providers.bill("wxpay", date, "ok", file.gzip(), file.sha1Hex());

        Concurrently.times(2, () -> schedule.enrol(wx, date));
        Concurrently.times(2, () -> scanner.drain(StatementRuns.TABLE));

        assertThat(db.count("SELECT COUNT(*) FROM statement_runs WHERE channel = 'wxpay' AND bill_date = ?", date)).isEqualTo(1);
        assertThat(runRow(wx, date).getInteger("status")).isEqualTo(1);
        assertThat(providers.requestsFor("wxpay", "bill", date.toString())).hasSize(1);
        assertThat(db.count("SELECT COUNT(*) FROM statement_discrepancies d JOIN statement_runs r ON r.id = d.run_id"
                + " WHERE r.channel = 'wxpay' AND r.bill_date = ?", date)).isEqualTo(1);
    }

    @Test
    void aReRunRecomputesOpenDiscrepanciesAndKeepsResolvedOnes() {
        ChannelId wx = ChannelId.WXPAY;
        LocalDate date = ledger.freshDate(wx);
        String first = Ids.unique("WK");
        String second = Ids.unique("WK");
        BillFiles.WxFile file = BillFiles.wxPay(List.of(payment(first, "4200" + first, "2.00", "CNY", SUCCEEDED),
                payment(second, "4200" + second, "2.00", "CNY", SUCCEEDED)), BillFiles.WxOptions.standard());
        providers.bill("wxpay", date, "ok", file.gzip(), file.sha1Hex());
        Row run = runDay(wx, date);
        long resolved = db.first("SELECT id FROM statement_discrepancies WHERE ident = ?", "4200" + first).getLong("id");
        db.update("UPDATE statement_discrepancies SET state = 'RESOLVED', note = 'test order', resolved_by = 'alice'"
                + " WHERE id = ?", resolved);

        rerun(wx, date);

        assertThat(found(runRow(wx, date))).containsExactlyInAnyOrder(
                "NOT_REGISTERED PAYMENT 4200" + first + " RESOLVED", "NOT_REGISTERED PAYMENT 4200" + second + " OPEN");
        assertThat(db.first("SELECT id, note FROM statement_discrepancies WHERE ident = ?", "4200" + first)
                .getLong("id")).isEqualTo(resolved);
    }

    // ---- helpers ----

    private Row runDay(ChannelId channel, LocalDate date) {
        schedule.enrol(channel, date);
        return StatementLedger.drained(scanner, db, () -> runRow(channel, date));
    }

    private Row runRow(ChannelId channel, LocalDate date) {
        return db.first("SELECT id, state, status, retry_count, last_error, file_digest, lines_compared, bill_payment_count,"
                + " bill_payment_sum, bill_refund_count, bill_refund_sum, our_payment_count, our_payment_sum,"
                + " our_refund_count, our_refund_sum, TIMESTAMPDIFF(SECOND, updated_at, next_retry_at) AS delay_seconds"
                + " FROM statement_runs WHERE merchant_id = ? AND channel = ? AND bill_date = ?",
                StatementLedger.MERCHANT, channel.path(), date);
    }

    /** Each discrepancy of the run as {@code KIND ITEM ident STATE}. */
    private Set<String> found(Row run) {
        return db.rows("SELECT kind, item, ident, state FROM statement_discrepancies WHERE run_id = ?", run.getLong("id"))
                .stream().map(row -> row.getString("kind") + " " + row.getString("item") + " " + row.getString("ident")
                        + " " + row.getString("state")).collect(Collectors.toSet());
    }

    private long paidEvents(String outTradeNo) {
        return db.count("SELECT COUNT(DISTINCT source) FROM outbox WHERE type = 'order.paid' AND out_trade_no = ?", outTradeNo);
    }

    private void rerun(ChannelId channel, LocalDate date) {
        Api.authorized().contentType("application/json")
                .body("{\"channel\":\"" + channel.path() + "\",\"billDate\":\"" + date + "\"}")
                .post("/admin/statements/runs").then().statusCode(200);
        StatementLedger.drained(scanner, db, () -> runRow(channel, date));
    }
}
