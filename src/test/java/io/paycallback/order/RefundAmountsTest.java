package io.paycallback.order;

import io.paycallback.inbox.CallbackTable;
import io.paycallback.lease.LeaseConfig;
import io.paycallback.lease.Scanner;
import io.paycallback.testsupport.Api;
import io.paycallback.testsupport.Concurrently;
import io.paycallback.testsupport.Db;
import io.paycallback.testsupport.Ids;
import io.paycallback.testsupport.Permutations;
import io.paycallback.testsupport.ProviderKeys;
import io.paycallback.testsupport.ProviderSigner;
import io.paycallback.testsupport.Send;
import io.paycallback.testsupport.SignedCallback;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.math.BigDecimal;
import java.nio.charset.Charset;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;

/**
 * Refund notices as the providers send them, through HTTP and the real database: the order's refunded amount is the
 * provider's total at every step, whatever the arrival order and however often a notice repeats.
 */
@QuarkusTest
class RefundAmountsTest {

    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final int DONE = 1;
    private static final int DEAD = 2;

    @Inject
    Pool pool;
    @Inject
    Scanner scanner;
    @Inject
    LeaseConfig config;

    private Db db;
    private ProviderSigner signer;

    @BeforeEach
    void setUp() {
        db = new Db(pool);
        signer = new ProviderSigner(ProviderKeys.fromConfig());
    }

    /** One refund notice, the refund ledger key it is stored under, and what the order shows once it is processed. */
    private record Step(String channel, String refundNo, SignedCallback callback, String refundedAfter) {
    }

    // ---- Alipay: refund_fee is the running total, notices come to the payment's notify_url ----

    @ParameterizedTest
    @ValueSource(strings = {"utf-8", "GBK"})
    void alipayPartialPartialClosingInEveryArrivalOrderWithDuplicates(String charsetName) {
        Charset charset = Charset.forName(charsetName);
        // Refunds of 20.00, 15.00 and 15.00: refund_fee reports 20.00, 35.00, then 50.00 with TRADE_CLOSED.
        String[] refundFee = {"20.00", "35.00", "50.00"};
        for (List<Integer> order : Permutations.of(List.of(0, 1, 2))) {
            AlipayTrade trade = paidAlipayOrder();
            String[] outBizNo = {Ids.unique("RF1-"), Ids.unique("RF2-"), Ids.unique("RF3-")};
            BigDecimal known = BigDecimal.ZERO;
            int sent = 0;
            for (int index : order) {
                SignedCallback notice = trade.refund(signer, outBizNo[index], refundFee[index], charset);
                Send.payment(notice).then().statusCode(200).body(equalTo("success"));
                awaitProcessed("alipay", outBizNo[index], DONE);
                Send.payment(notice).then().statusCode(200);
                sent++;
                known = known.max(new BigDecimal(refundFee[index]));
                String context = charsetName + " order " + order + " after " + sent;
                JsonPath shown = Api.order(trade.outTradeNo()).then().statusCode(200).extract().jsonPath();
                assertThat(shown.getString("refundedAmount")).as(context).isEqualTo(known.toPlainString());
                assertThat(shown.getString("status")).as(context)
                        .isEqualTo(known.compareTo(new BigDecimal("50.00")) == 0 ? "REFUNDED" : "PAID");
                assertThat(refundEvents(trade.outTradeNo())).as(context).hasSize(sent);
                assertThat(eventTotal(trade.outTradeNo())).as(context).isEqualByComparingTo(known);
            }
            assertThat(db.count("SELECT COUNT(*) FROM refund_callback_log WHERE channel = 'alipay' AND out_trade_no = ?",
                    trade.outTradeNo())).isEqualTo(3);
        }
    }

    @Test
    void alipayRefundNoticesOnTheRefundEndpointStillCount() {
        AlipayTrade trade = paidAlipayOrder();
        String outBizNo = Ids.unique("RF");
        Send.refund(trade.refund(signer, outBizNo, "12.34", Charset.forName("GBK"))).then().statusCode(200);
        awaitProcessed("alipay", outBizNo, DONE);
        assertThat(Api.order(trade.outTradeNo()).jsonPath().getString("refundedAmount")).isEqualTo("12.34");
    }

    @Test
    void concurrentAlipayNoticesAndTheirDuplicatesEndAtTheProvidersTotal() throws Exception {
        AlipayTrade trade = paidAlipayOrder();
        List<String> outBizNos = new ArrayList<>();
        List<SignedCallback> notices = new ArrayList<>();
        for (String fee : new String[] {"20.00", "35.00", "50.00"}) {
            String outBizNo = Ids.unique("RF");
            outBizNos.add(outBizNo);
            SignedCallback notice = trade.refund(signer, outBizNo, fee, Charset.forName("utf-8"));
            for (int copy = 0; copy < 4; copy++) {
                notices.add(notice);
            }
        }
        assertThat(Concurrently.each(notices, notice -> Send.payment(notice).statusCode())).containsOnly(200);
        for (String outBizNo : outBizNos) {
            awaitProcessed("alipay", outBizNo, DONE);
        }
        assertThat(Api.order(trade.outTradeNo()).jsonPath().getString("refundedAmount")).isEqualTo("50.00");
        assertThat(Api.orderStatus(trade.outTradeNo())).isEqualTo("REFUNDED");
        assertThat(refundEvents(trade.outTradeNo())).hasSize(3);
        assertThat(eventTotal(trade.outTradeNo())).isEqualByComparingTo("50.00");
    }

    // ---- Stripe: charge.refunded without a list carries only the running total; refund.* the refund's own amount ----

    @Test
    void stripeTwoPartialRefundsAsChargeTotalsAndRefundObjectsInEitherOrderCountOnce() {
        // Refunds re_A of 30.00 and re_B of 20.00 on a 100.00 charge. Each list is an arrival order with the
        // refunded amount the order must show after each notice.
        String[][] arrivals = {
                {"C30", "30.00", "RA", "30.00", "C50", "50.00", "RB", "50.00"},
                {"RA", "30.00", "C30", "30.00", "RB", "50.00", "C50", "50.00"},
                {"C30", "30.00", "C50", "50.00", "RA", "50.00", "RB", "50.00"},
                {"RA", "30.00", "RB", "50.00", "C30", "50.00", "C50", "50.00"},
                {"RB", "20.00", "C30", "30.00", "RA", "50.00", "C50", "50.00"},
                {"C50", "50.00", "RB", "50.00", "RA", "50.00", "C30", "50.00"},
        };
        for (String[] arrival : arrivals) {
            String outTradeNo = newOrder("100.00", "USD");
            String paymentIntent = Ids.unique("pi_");
            payStripe(outTradeNo, paymentIntent, 10000, "usd");
            String refundA = Ids.unique("re_A");
            String refundB = Ids.unique("re_B");
            String charge = "ch_" + paymentIntent;
            for (int i = 0; i < arrival.length; i += 2) {
                Step step = switch (arrival[i]) {
                    case "C30" -> new Step("stripe", charge + ":refunded:3000",
                            signer.stripeChargeRefunded(outTradeNo, paymentIntent, 10000, 3000, 0, "usd", Instant.now()),
                            arrival[i + 1]);
                    case "C50" -> new Step("stripe", charge + ":refunded:5000",
                            signer.stripeChargeRefunded(outTradeNo, paymentIntent, 10000, 5000, 3000, "usd", Instant.now()),
                            arrival[i + 1]);
                    case "RA" -> new Step("stripe", refundA,
                            signer.stripeRefund(outTradeNo, paymentIntent, refundA, 3000, "usd", "succeeded", Instant.now()),
                            arrival[i + 1]);
                    default -> new Step("stripe", refundB,
                            signer.stripeRefund(outTradeNo, paymentIntent, refundB, 2000, "usd", "succeeded", Instant.now()),
                            arrival[i + 1]);
                };
                // Stripe sends every event to the one endpoint the merchant registered: the payment URL.
                Send.payment(step.callback()).then().statusCode(200);
                awaitProcessed(step.channel(), step.refundNo(), DONE);
                String context = String.join(",", arrival) + " at " + arrival[i];
                assertThat(Api.order(outTradeNo).jsonPath().getString("refundedAmount")).as(context)
                        .isEqualTo(step.refundedAfter());
                assertThat(eventTotal(outTradeNo)).as(context).isEqualByComparingTo(step.refundedAfter());
            }
            // refund.created then refund.updated for the same refund: one ledger row, nothing counted again.
            Send.payment(signer.stripeRefund(outTradeNo, paymentIntent, refundA, 3000, "usd", "succeeded", Instant.now()))
                    .then().statusCode(200);
            assertThat(Api.order(outTradeNo).jsonPath().getString("refundedAmount")).isEqualTo("50.00");
            assertThat(Api.orderStatus(outTradeNo)).isEqualTo("PAID");
        }
    }

    @Test
    void stripeJpyRefundsScaleByNoDecimals() {
        String outTradeNo = newOrder("5000", "JPY");
        String paymentIntent = Ids.unique("pi_");
        payStripe(outTradeNo, paymentIntent, 5000, "jpy");
        String refund = Ids.unique("re_");
        Send.refund(signer.stripeRefund(outTradeNo, paymentIntent, refund, 1500, "jpy", "succeeded", Instant.now()))
                .then().statusCode(200);
        awaitProcessed("stripe", refund, DONE);
        assertThat(Api.order(outTradeNo).jsonPath().getString("refundedAmount")).isEqualTo("1500.00");

        Send.payment(signer.stripeChargeRefunded(outTradeNo, paymentIntent, 5000, 5000, 1500, "jpy", Instant.now()))
                .then().statusCode(200);
        awaitProcessed("stripe", "ch_" + paymentIntent + ":refunded:5000", DONE);
        assertThat(Api.order(outTradeNo).jsonPath().getString("refundedAmount")).isEqualTo("5000.00");
        assertThat(Api.orderStatus(outTradeNo)).isEqualTo("REFUNDED");
    }

    // ---- WeChat Pay: amount.refund is the refund's own amount ----

    @Test
    void wechatThreeAndNinetySevenFenRefundTheOrder() {
        String outTradeNo = newOrder("1.00", "CNY");
        String transactionId = Ids.unique("42000");
        payWx(outTradeNo, transactionId, 100);
        String first = Ids.unique("RF");
        Send.refund(signer.wxRefund(outTradeNo, transactionId, first, Ids.unique("5030"), 100, 3, "SUCCESS", Instant.now()))
                .then().statusCode(200);
        awaitProcessed("wxpay", first, DONE);
        assertThat(Api.order(outTradeNo).jsonPath().getString("refundedAmount")).isEqualTo("0.03");
        assertThat(Api.orderStatus(outTradeNo)).isEqualTo("PAID");

        String second = Ids.unique("RF");
        SignedCallback rest = signer.wxRefund(outTradeNo, transactionId, second, Ids.unique("5030"), 100, 97, "SUCCESS",
                Instant.now());
        Send.refund(rest).then().statusCode(200);
        awaitProcessed("wxpay", second, DONE);
        Send.refund(rest).then().statusCode(200);
        assertThat(Api.order(outTradeNo).jsonPath().getString("refundedAmount")).isEqualTo("1.00");
        assertThat(Api.orderStatus(outTradeNo)).isEqualTo("REFUNDED");
        assertThat(refundEvents(outTradeNo)).hasSize(2);
    }

    // ---- what is never applied: a person looks at it ----

    @Test
    void aRefundInAnotherCurrencyIsDeadLetteredAndAlerted() {
        String outTradeNo = newOrder("10.00", "USD");
        String paymentIntent = Ids.unique("pi_");
        payStripe(outTradeNo, paymentIntent, 1000, "usd");
        String refund = Ids.unique("re_");
        Send.payment(signer.stripeRefund(outTradeNo, paymentIntent, refund, 500, "eur", "succeeded", Instant.now()))
                .then().statusCode(200);
        awaitProcessed("stripe", refund, DEAD);
        assertNothingApplied(outTradeNo, refund, "currency mismatch");
    }

    @Test
    void anAlipayTotalAbovePaidIsDeadLetteredAndLaterRefundsStillCount() {
        AlipayTrade trade = paidAlipayOrder();
        String over = Ids.unique("RF");
        Send.payment(trade.refund(signer, over, "60.00", Charset.forName("utf-8"))).then().statusCode(200);
        awaitProcessed("alipay", over, DEAD);
        assertNothingApplied(trade.outTradeNo(), over, "over-refund");

        String fine = Ids.unique("RF");
        Send.payment(trade.refund(signer, fine, "20.00", Charset.forName("utf-8"))).then().statusCode(200);
        awaitProcessed("alipay", fine, DONE);
        assertThat(Api.order(trade.outTradeNo()).jsonPath().getString("refundedAmount")).isEqualTo("20.00");
    }

    @Test
    void wechatRefundsAddingUpBeyondPaidAreDeadLettered() {
        String outTradeNo = newOrder("1.00", "CNY");
        String transactionId = Ids.unique("42000");
        payWx(outTradeNo, transactionId, 100);
        String first = Ids.unique("RF");
        Send.refund(signer.wxRefund(outTradeNo, transactionId, first, Ids.unique("5030"), 100, 60, "SUCCESS", Instant.now()))
                .then().statusCode(200);
        awaitProcessed("wxpay", first, DONE);
        String second = Ids.unique("RF");
        Send.refund(signer.wxRefund(outTradeNo, transactionId, second, Ids.unique("5030"), 100, 41, "SUCCESS", Instant.now()))
                .then().statusCode(200);
        awaitProcessed("wxpay", second, DEAD);
        assertThat(Api.order(outTradeNo).jsonPath().getString("refundedAmount")).isEqualTo("0.60");
        assertThat(Api.orderStatus(outTradeNo)).isEqualTo("PAID");
        assertThat(alerts(second)).anySatisfy(reason -> assertThat(reason).contains("over-refund"));
    }

    @Test
    void aRefundOfAPaymentNeverSeenPaidEndsDeadAndAlerted() {
        String outTradeNo = newOrder("1.00", "CNY");
        String transactionId = Ids.unique("42000");
        String refundNo = Ids.unique("RF");
        Send.refund(signer.wxRefund(outTradeNo, transactionId, refundNo, Ids.unique("5030"), 100, 100, "SUCCESS",
                Instant.now())).then().statusCode(200);
        long id = db.first("SELECT id FROM refund_callback_log WHERE channel = 'wxpay' AND refund_no = ?", refundNo)
                .getLong("id");
        await().atMost(WAIT).until(() -> status(id).getInteger("retry_count") >= 1);
        for (int tries = 0; tries < config.backoff().size() && status(id).getInteger("status") == 0; tries++) {
            db.update("UPDATE refund_callback_log SET next_retry_at = DATE_SUB(NOW(3), INTERVAL 1 SECOND) WHERE id = ?", id);
            scanner.drain(CallbackTable.REFUND.leased());
        }
        assertThat(status(id).getInteger("status")).isEqualTo(DEAD);
        assertThat(alerts(refundNo)).anySatisfy(reason -> assertThat(reason).contains("dead letter").contains("not processed yet"));
        assertThat(Api.order(outTradeNo).jsonPath().getString("refundedAmount")).isEqualTo("0.00");
        assertThat(Api.orderStatus(outTradeNo)).isEqualTo("PENDING");
    }

    // ---- helpers ----

    private void assertNothingApplied(String outTradeNo, String refundNo, String reason) {
        assertThat(Api.order(outTradeNo).jsonPath().getString("refundedAmount")).isEqualTo("0.00");
        assertThat(Api.orderStatus(outTradeNo)).isEqualTo("PAID");
        assertThat(db.count("SELECT COUNT(*) FROM refunds WHERE refund_no = ?", refundNo)).isZero();
        assertThat(refundEvents(outTradeNo)).isEmpty();
        assertThat(alerts(refundNo)).anySatisfy(text -> assertThat(text).contains(reason));
        assertThat(db.first("SELECT last_error FROM refund_callback_log WHERE refund_no = ?", refundNo)
                .getString("last_error")).contains(reason);
    }

    private String newOrder(String amount, String currency) {
        String outTradeNo = Ids.unique("ORD");
        Api.createOrder(outTradeNo, amount, currency).then().statusCode(201);
        return outTradeNo;
    }

    /** An order of 50.00 CNY paid with Alipay, and the trade number its refunds name. */
    private record AlipayTrade(String outTradeNo, String tradeNo) {

        SignedCallback refund(ProviderSigner signer, String outBizNo, String refundFee, Charset charset) {
            return signer.alipayRefund(outTradeNo, tradeNo, outBizNo, new BigDecimal("50.00"), new BigDecimal(refundFee),
                    refundFee.equals("50.00") ? "TRADE_CLOSED" : "TRADE_SUCCESS", charset);
        }
    }

    private AlipayTrade paidAlipayOrder() {
        String outTradeNo = newOrder("50.00", "CNY");
        String tradeNo = Ids.unique("2026120222001");
        payAlipay(outTradeNo, tradeNo, "50.00");
        return new AlipayTrade(outTradeNo, tradeNo);
    }

    private void payAlipay(String outTradeNo, String tradeNo, String amount) {
        Send.payment(signer.alipayPayment(outTradeNo, tradeNo, new BigDecimal(amount), "TRADE_SUCCESS")).then().statusCode(200);
        awaitPaid(outTradeNo);
    }

    private void payStripe(String outTradeNo, String paymentIntent, long minor, String currency) {
        Send.payment(signer.stripePayment(outTradeNo, paymentIntent, minor, currency, Instant.now())).then().statusCode(200);
        awaitPaid(outTradeNo);
    }

    private void payWx(String outTradeNo, String transactionId, long fen) {
        Send.payment(signer.wxPayment(outTradeNo, transactionId, fen, "SUCCESS", Instant.now())).then().statusCode(200);
        awaitPaid(outTradeNo);
    }

    private void awaitPaid(String outTradeNo) {
        await().atMost(WAIT).until(() -> "PAID".equals(Api.orderStatus(outTradeNo)));
    }

    private void awaitProcessed(String channel, String refundNo, int status) {
        await().atMost(WAIT).until(() -> db.count(
                "SELECT COUNT(*) FROM refund_callback_log WHERE channel = ? AND refund_no = ? AND status = ?",
                channel, refundNo, status) == 1);
    }

    private Row status(long id) {
        return db.first("SELECT status, retry_count FROM refund_callback_log WHERE id = ?", id);
    }

    private List<JsonPath> refundEvents(String outTradeNo) {
        return db.rows("SELECT payload FROM outbox WHERE out_trade_no = ? AND type = 'refund.succeeded'", outTradeNo)
                .stream().map(row -> new JsonPath(row.getString("payload"))).toList();
    }

    /** What the refund.succeeded events of the order add up to: a consumer summing them must see the refunded total. */
    private BigDecimal eventTotal(String outTradeNo) {
        return refundEvents(outTradeNo).stream().map(event -> new BigDecimal(event.getString("amount")))
                .reduce(BigDecimal.ZERO, BigDecimal::add);
    }

    private List<String> alerts(String refundNo) {
        return db.rows("SELECT payload FROM outbox WHERE type = 'alert'").stream()
                .map(row -> new JsonPath(row.getString("payload")))
                .filter(event -> refundNo.equals(event.getString("refundNo")))
                .map(event -> event.getString("reason")).toList();
    }
}
