package io.paycallback.callback;

import io.paycallback.testsupport.Concurrently;
import io.paycallback.testsupport.Db;
import io.paycallback.testsupport.Ids;
import io.paycallback.testsupport.ManagementPort;
import io.paycallback.testsupport.ProviderKeys;
import io.paycallback.testsupport.ProviderSigner;
import io.paycallback.testsupport.Send;
import io.paycallback.testsupport.SignedCallback;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.SqlConnection;
import io.vertx.mutiny.sqlclient.Transaction;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

@QuarkusTest
class CallbackResourceTest {

    private static final String WX_SUCCESS = "{\"code\":\"SUCCESS\",\"message\":\"成功\"}";

    @Inject
    Pool pool;

    @Inject
    CallbackGate gate;

    private Db db;
    private ProviderSigner signer;

    @BeforeEach
    void setUp() {
        db = new Db(pool);
        signer = new ProviderSigner(ProviderKeys.fromConfig());
    }

    private long paymentRows(String channel, String channelTradeNo) {
        return db.count("SELECT COUNT(*) FROM pay_callback_log WHERE merchant_id = 'default' AND channel = ? AND channel_trade_no = ?",
                channel, channelTradeNo);
    }

    private long refundRows(String channel, String refundNo) {
        return db.count("SELECT COUNT(*) FROM refund_callback_log WHERE merchant_id = 'default' AND channel = ? AND refund_no = ?",
                channel, refundNo);
    }

    @Test
    void wxpayPaymentIsReservedOnceAndAnsweredInWeChatFormat() {
        String transactionId = Ids.unique("42000");
        SignedCallback callback = signer.wxPayment(Ids.unique("ORD"), transactionId, 8800, "SUCCESS", Instant.now());

        for (int push = 0; push < 2; push++) {
            Response response = Send.payment(callback);
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.body().asString()).isEqualTo(WX_SUCCESS);
        }
        assertThat(paymentRows("wxpay", transactionId)).isEqualTo(1);
        assertThat(db.first("SELECT amount, currency, trade_state, status FROM pay_callback_log WHERE channel_trade_no = ?",
                transactionId).getBigDecimal("amount")).isEqualByComparingTo("88.00");
    }

    @Test
    void alipayPaymentIsReservedOnceAndAnsweredSuccess() {
        String tradeNo = Ids.unique("2026");
        SignedCallback callback = signer.alipayPayment(Ids.unique("ORD"), tradeNo, new BigDecimal("12.34"), "TRADE_SUCCESS");

        for (int push = 0; push < 2; push++) {
            Response response = Send.payment(callback);
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.body().asString()).isEqualTo("success");
        }
        assertThat(paymentRows("alipay", tradeNo)).isEqualTo(1);
    }

    @Test
    void alipayFinishedAfterSuccessIsTheSamePayment() {
        String tradeNo = Ids.unique("2026");
        String outTradeNo = Ids.unique("ORD");
        Send.payment(signer.alipayPayment(outTradeNo, tradeNo, new BigDecimal("1.00"), "TRADE_SUCCESS")).then().statusCode(200);
        Send.payment(signer.alipayPayment(outTradeNo, tradeNo, new BigDecimal("1.00"), "TRADE_FINISHED")).then().statusCode(200);
        assertThat(paymentRows("alipay", tradeNo)).isEqualTo(1);
    }

    @Test
    void stripePaymentIsReservedOnce() {
        String paymentIntent = Ids.unique("pi_");
        SignedCallback callback = signer.stripePayment(Ids.unique("ORD"), paymentIntent, 1999, "usd", Instant.now());

        Send.payment(callback).then().statusCode(200);
        Send.payment(callback).then().statusCode(200);

        assertThat(paymentRows("stripe", paymentIntent)).isEqualTo(1);
        assertThat(db.first("SELECT amount, currency FROM pay_callback_log WHERE channel_trade_no = ?", paymentIntent)
                .getBigDecimal("amount")).isEqualByComparingTo("19.99");
    }

    @Test
    void unpaidStatesAreAcknowledgedButNotReserved() {
        String transactionId = Ids.unique("42000");
        Response response = Send.payment(signer.wxPayment(Ids.unique("ORD"), transactionId, 100, "NOTPAY", Instant.now()));
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body().asString()).isEqualTo(WX_SUCCESS);

        String tradeNo = Ids.unique("2026");
        Send.payment(signer.alipayPayment(Ids.unique("ORD"), tradeNo, BigDecimal.ONE, "WAIT_BUYER_PAY")).then().statusCode(200);

        assertThat(paymentRows("wxpay", transactionId)).isZero();
        assertThat(paymentRows("alipay", tradeNo)).isZero();
    }

    @Test
    void paymentAndRefundWithTheSameProviderNumberLandInTheirOwnTables() {
        String number = Ids.unique("42000");
        String outTradeNo = Ids.unique("ORD");
        Send.payment(signer.wxPayment(outTradeNo, number, 500, "SUCCESS", Instant.now())).then().statusCode(200);
        Send.refund(signer.wxRefund(outTradeNo, number, number, Ids.unique("5030"), 500, "SUCCESS", Instant.now())).then().statusCode(200);

        assertThat(paymentRows("wxpay", number)).isEqualTo(1);
        assertThat(refundRows("wxpay", number)).isEqualTo(1);
    }

    @Test
    void refundsOfEveryChannelAreReservedOnce() {
        String wxRefundNo = Ids.unique("RF");
        SignedCallback wx = signer.wxRefund(Ids.unique("ORD"), Ids.unique("42000"), wxRefundNo, Ids.unique("5030"), 100, "SUCCESS", Instant.now());
        String alipayRefundNo = Ids.unique("RF");
        SignedCallback alipay = signer.alipayRefund(Ids.unique("ORD"), Ids.unique("2026"), alipayRefundNo, new BigDecimal("0.50"));
        String stripeRefundId = Ids.unique("re_");
        SignedCallback stripe = signer.stripeRefund(Ids.unique("ORD"), Ids.unique("pi_"), stripeRefundId, 500, "jpy", "succeeded", Instant.now());

        for (SignedCallback callback : List.of(wx, alipay, stripe, wx, alipay, stripe)) {
            Send.refund(callback).then().statusCode(200);
        }
        assertThat(refundRows("wxpay", wxRefundNo)).isEqualTo(1);
        assertThat(refundRows("alipay", alipayRefundNo)).isEqualTo(1);
        assertThat(refundRows("stripe", stripeRefundId)).isEqualTo(1);
        assertThat(db.first("SELECT amount FROM refund_callback_log WHERE refund_no = ?", stripeRefundId)
                .getBigDecimal("amount")).isEqualByComparingTo("500");
    }

    @Test
    void hundredConcurrentIdenticalCallbacksAllSucceedWithOneRow() throws Exception {
        Map<String, Function<String, SignedCallback>> callbacks = Map.of(
                "wxpay", no -> signer.wxPayment(Ids.unique("ORD"), no, 100, "SUCCESS", Instant.now()),
                "alipay", no -> signer.alipayPayment(Ids.unique("ORD"), no, new BigDecimal("1.00"), "TRADE_SUCCESS"),
                "stripe", no -> signer.stripePayment(Ids.unique("ORD"), no, 100, "usd", Instant.now()));
        for (Map.Entry<String, Function<String, SignedCallback>> channel : callbacks.entrySet()) {
            String tradeNo = Ids.unique("T");
            SignedCallback callback = channel.getValue().apply(tradeNo);

            List<Integer> statuses = Concurrently.times(100, () -> Send.payment(callback).statusCode());

            assertThat(statuses).as(channel.getKey()).hasSize(100).containsOnly(200);
            assertThat(paymentRows(channel.getKey(), tradeNo)).as(channel.getKey()).isEqualTo(1);
        }
    }

    @Test
    void duplicatesDoNotWaitBehindAnOpenTransactionOnTheReservedRow() throws Exception {
        String transactionId = Ids.unique("42000");
        SignedCallback callback = signer.wxPayment(Ids.unique("ORD"), transactionId, 100, "SUCCESS", Instant.now());
        Send.payment(callback).then().statusCode(200);
        long id = db.first("SELECT id FROM pay_callback_log WHERE channel_trade_no = ?", transactionId).getLong("id");

        // A transition holds the reserved row for its whole transaction, exactly as this one does; the provider's
        // repeat pushes must not queue behind it (they would, had reserve and business shared one transaction).
        SqlConnection connection = pool.getConnection().await().indefinitely();
        try {
            Transaction transaction = connection.begin().await().indefinitely();
            connection.preparedQuery("UPDATE pay_callback_log SET last_error = 'held by a transition' WHERE id = ?")
                    .execute(Tuple.of(id)).await().indefinitely();

            // Answered while the row is still locked: a repeat that waited for the lock would outlast the store
            // timeout (3 s, far below the lock wait timeout) and be answered 500.
            List<Integer> statuses = Concurrently.times(20, () -> Send.payment(callback).statusCode());

            transaction.rollback().await().indefinitely();
            assertThat(statuses).hasSize(20).containsOnly(200);
        } finally {
            connection.close().await().indefinitely();
        }
        assertThat(paymentRows("wxpay", transactionId)).isEqualTo(1);
    }

    @Test
    void badSignatureIsRefusedInEachProvidersFormatAndNothingIsStored() {
        String transactionId = Ids.unique("42000");
        SignedCallback wx = signer.wxPayment(Ids.unique("ORD"), transactionId, 100, "SUCCESS", Instant.now());
        Map<String, String> forged = new java.util.HashMap<>(wx.headers());
        forged.put("Wechatpay-Signature", ProviderSigner.rsaSha256(ProviderKeys.generate().wxPrivate(),
                "forged".getBytes(StandardCharsets.UTF_8)));
        Response wxResponse = Send.payment(new SignedCallback("wxpay", forged, wx.contentType(), wx.body()));
        assertThat(wxResponse.statusCode()).isEqualTo(401);
        assertThat(wxResponse.body().asString()).contains("\"code\":\"FAIL\"");

        String tradeNo = Ids.unique("2026");
        SignedCallback alipay = signer.alipayPayment(Ids.unique("ORD"), tradeNo, new BigDecimal("9.99"), "TRADE_SUCCESS");
        String tampered = alipay.bodyAsUtf8().replace("total_amount=9.99", "total_amount=0.01");
        Response alipayResponse = Send.payment(new SignedCallback("alipay", Map.of(), alipay.contentType(),
                tampered.getBytes(StandardCharsets.US_ASCII)));
        assertThat(alipayResponse.body().asString()).isEqualTo("fail");
        assertThat(alipayResponse.statusCode()).isNotEqualTo(200);

        String paymentIntent = Ids.unique("pi_");
        SignedCallback stripe = signer.stripePayment(Ids.unique("ORD"), paymentIntent, 100, "usd", Instant.now());
        Send.payment(new SignedCallback("stripe", Map.of("Stripe-Signature", "t=1,v1=00"), stripe.contentType(), stripe.body()))
                .then().statusCode(400);
        Send.payment(new SignedCallback("stripe", Map.of(), stripe.contentType(), stripe.body())).then().statusCode(400);

        assertThat(paymentRows("wxpay", transactionId)).isZero();
        assertThat(paymentRows("alipay", tradeNo)).isZero();
        assertThat(paymentRows("stripe", paymentIntent)).isZero();
    }

    @Test
    void signedButUnparseableBodyIsQuarantinedOnceAndRefused() {
        String body = "{\"id\":\"evt_" + Ids.unique("") + "\",\"type\":\"payment_intent.succeeded\",\"data\":{\"object\":{\"id\":\"pi_x\"";
        SignedCallback callback = signer.stripeSigned(body, Instant.now());

        Send.payment(callback).then().statusCode(400);
        Send.payment(callback).then().statusCode(400);

        String hash = io.paycallback.inbox.BodyDigest.of(callback.body()).hex();
        assertThat(db.count("SELECT COUNT(*) FROM quarantine WHERE body_hash = ?", hash)).isEqualTo(1);
        assertThat(db.first("SELECT channel, body_length FROM quarantine WHERE body_hash = ?", hash).getInteger("body_length"))
                .isEqualTo(callback.body().length);
    }

    @Test
    void oversizeBodyIsRefusedWith413() {
        String padding = "x".repeat(70 * 1024);
        SignedCallback callback = signer.stripeSigned("{\"pad\":\"" + padding + "\"}", Instant.now());
        Send.payment(callback).then().statusCode(413);
    }

    @Test
    void unknownChannelAndUnknownMerchantAre404AndStoreNothing() {
        SignedCallback callback = signer.stripePayment(Ids.unique("ORD"), Ids.unique("pi_"), 100, "usd", Instant.now());
        Send.post("/pay/callback/paypal", callback).then().statusCode(404);
        Send.post("/pay/callback/stripe/no-such-merchant", callback).then().statusCode(404);
    }

    @Test
    void fullGateAnswersBusyAtOnceWithoutStoring() {
        String transactionId = Ids.unique("42000");
        SignedCallback callback = signer.wxPayment(Ids.unique("ORD"), transactionId, 100, "SUCCESS", Instant.now());
        int held = 0;
        try {
            while (gate.tryEnter()) {
                held++;
            }
            Response response = Send.payment(callback);
            assertThat(response.statusCode()).isEqualTo(503);
            assertThat(response.body().asString()).contains("\"code\":\"FAIL\"");
        } finally {
            for (int i = 0; i < held; i++) {
                gate.leave();
            }
        }
        assertThat(held).isEqualTo(256);
        assertThat(paymentRows("wxpay", transactionId)).isZero();

        Send.payment(callback).then().statusCode(200);
        assertThat(gate.inFlight()).isZero();
    }

    @Test
    void metricsCountOutcomesByChannelAndKind() {
        Send.payment(signer.stripePayment(Ids.unique("ORD"), Ids.unique("pi_"), 100, "usd", Instant.now())).then().statusCode(200);
        String metrics = given().port(ManagementPort.get()).get("/q/metrics").then().statusCode(200).extract().asString();
        assertThat(metrics).contains("paycallback_callbacks_total{channel=\"stripe\",kind=\"payment\",outcome=\"new\"}");
    }
}
