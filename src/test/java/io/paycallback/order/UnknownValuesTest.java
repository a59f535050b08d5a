package io.paycallback.order;

import io.paycallback.inbox.CallbackTable;
import io.paycallback.lease.Scanner;
import io.paycallback.testsupport.Api;
import io.paycallback.testsupport.Db;
import io.paycallback.testsupport.Ids;
import io.paycallback.testsupport.ProviderKeys;
import io.paycallback.testsupport.ProviderSigner;
import io.paycallback.testsupport.Send;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A state another release wrote, which this build does not know (a rolling upgrade, a rollback): the order API shows it
 * as stored, and a payment for the order waits for a release that knows it, without spending a try or dying, then
 * settles once the order is in a state this build decides on.
 */
@QuarkusTest
class UnknownValuesTest {

    private static final Duration WAIT = Duration.ofSeconds(20);

    @Inject
    Pool pool;
    @Inject
    Scanner scanner;

    @Test
    void aPaymentForAnOrderInAnotherReleasesStateWaitsUnspentThenSettles() {
        Db db = new Db(pool);
        ProviderSigner signer = new ProviderSigner(ProviderKeys.fromConfig());
        String outTradeNo = Ids.unique("ORD");
        Api.createOrder(outTradeNo, "12.00", "CNY").then().statusCode(201);
        db.update("UPDATE orders SET status = 'PARTLY_PAID' WHERE out_trade_no = ?", outTradeNo);

        Api.order(outTradeNo).then().statusCode(200).body("status", org.hamcrest.Matchers.equalTo("PARTLY_PAID"));

        String transactionId = Ids.unique("42000");
        Send.payment(signer.wxPayment(outTradeNo, transactionId, 1200, "SUCCESS", Instant.now())).then().statusCode(200);
        await().atMost(WAIT).until(() -> callback(db, transactionId).getString("last_error") != null);
        Row waiting = callback(db, transactionId);
        assertThat(waiting.getInteger("status")).as("still pending, not dead").isZero();
        assertThat(waiting.getInteger("retry_count")).as("no try spent").isZero();
        assertThat(waiting.getString("last_error")).contains("orders.status").contains("PARTLY_PAID");

        // A release that knows the state moved the order on; here it is PENDING again, and the payment settles it.
        db.update("UPDATE orders SET status = 'PENDING' WHERE out_trade_no = ?", outTradeNo);
        db.update("UPDATE pay_callback_log SET next_retry_at = NOW(3) WHERE channel_trade_no = ?", transactionId);
        scanner.drain(CallbackTable.PAYMENT.leased());
        await().atMost(WAIT).until(() -> "PAID".equals(Api.orderStatus(outTradeNo)));
        assertThat(callback(db, transactionId).getInteger("retry_count")).isZero();
    }

    private static Row callback(Db db, String transactionId) {
        return db.first("SELECT status, retry_count, last_error FROM pay_callback_log WHERE channel_trade_no = ?",
                transactionId);
    }
}
