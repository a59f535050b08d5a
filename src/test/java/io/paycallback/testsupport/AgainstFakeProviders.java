package io.paycallback.testsupport;

import io.vertx.mutiny.sqlclient.Pool;
import jakarta.inject.Inject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

import java.time.Duration;

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
}
