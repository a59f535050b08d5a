package io.paycallback.testsupport;

import io.vertx.mutiny.sqlclient.Pool;
import jakarta.inject.Inject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

import java.time.Duration;
import java.time.Instant;

import static org.awaitility.Awaitility.await;

/**
 * What a {@code @QuarkusTest} against the fake providers starts from: the database, a signer with the providers' test
 * keys, the fakes back to their normal answers around each test, and the look-ups such tests share.
 */
public abstract class AgainstFakeProviders {

    protected static final Duration WAIT = Duration.ofSeconds(20);

    protected final Providers providers = new Providers();
    protected Db db;
    protected ProviderSigner signer;

    @Inject
    protected Pool pool;

    @BeforeEach
    void databaseSignerAndProviders() {
        db = new Db(pool);
        signer = new ProviderSigner(ProviderKeys.fromConfig());
        providers.reset();
    }

    @AfterEach
    void providersBackToNormal() {
        providers.reset();
    }

    protected static String newOrder(String amount, String currency) {
        String outTradeNo = Ids.unique("ORD");
        Api.createOrder(outTradeNo, amount, currency).then().statusCode(201);
        return outTradeNo;
    }

    /** Distinct events of a type for the order (one outbox row per destination). */
    protected long events(String type, String outTradeNo) {
        return db.count("SELECT COUNT(DISTINCT source) FROM outbox WHERE type = ? AND out_trade_no = ?", type, outTradeNo);
    }

    protected void awaitRefundStatus(String refundNo, String status) {
        await().atMost(WAIT).until(() -> db.count("SELECT COUNT(*) FROM refunds WHERE refund_no = ? AND status = ?",
                refundNo, status) == 1);
    }

    /** A WeChat Pay refund made in the merchant's dashboard, its notice {@code PROCESSING}. */
    protected record DashboardRefund(String outTradeNo, String transactionId, String outRefundNo, String refundId) {
    }

    /** A paid order of 30.00 CNY, then the notice of a dashboard refund of 10.00 that is still processing, answered 200. */
    protected DashboardRefund processingWechatRefund() {
        String outTradeNo = newOrder("30.00", "CNY");
        String transactionId = Ids.unique("42000");
        Send.payment(signer.wxPayment(outTradeNo, transactionId, 3000, "SUCCESS", Instant.now())).then().statusCode(200);
        await().atMost(WAIT).until(() -> "PAID".equals(Api.orderStatus(outTradeNo)));
        DashboardRefund refund = new DashboardRefund(outTradeNo, transactionId, Ids.unique("DASH"), Ids.unique("5030"));
        Send.refund(signer.wxRefund(outTradeNo, transactionId, refund.outRefundNo(), refund.refundId(), 3000, 1000,
                "PROCESSING", Instant.now())).then().statusCode(200);
        return refund;
    }

    /** The query's answer for {@code refund}: settled. */
    protected void refundSucceedsAtWechat(DashboardRefund refund) {
        providers.refundAnswer("wxpay", refund.outRefundNo(), """
                {"refund_id":"%s","out_refund_no":"%s","transaction_id":"%s","out_trade_no":"%s","status":"SUCCESS",\
                "amount":{"total":3000,"refund":1000,"payer_total":3000,"payer_refund":1000,"currency":"CNY"}}"""
                .formatted(refund.refundId(), refund.outRefundNo(), refund.transactionId(), refund.outTradeNo()));
    }
}
