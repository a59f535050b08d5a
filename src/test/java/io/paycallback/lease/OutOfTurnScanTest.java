package io.paycallback.lease;

import io.agroal.api.AgroalDataSource;
import io.paycallback.testsupport.Api;
import io.paycallback.testsupport.Db;
import io.paycallback.testsupport.Ids;
import io.paycallback.testsupport.ProviderKeys;
import io.paycallback.testsupport.ProviderSigner;
import io.paycallback.testsupport.Send;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The callbacks of a burst that ingest wrote due, because the workers had no room, are taken as soon as the workers
 * catch up: with the scheduled scan an hour away, only the scan out of turn can pay them.
 */
@QuarkusTest
@TestProfile(OutOfTurnScanTest.NoScheduledScan.class)
class OutOfTurnScanTest {

    public static class NoScheduledScan implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of(
                    "paycallback.retry.scan-interval", "1h",
                    "paycallback.retry.scan-delay", "1h",
                    // One worker takes fresh callbacks and one more may wait for it: the rest of the burst is turned away.
                    "paycallback.retry.workers", "4",
                    "paycallback.retry.hand-off-queue", "1",
                    "paycallback.database.query-timeout", "30s");
        }
    }

    private static final int BURST = 12;

    @Inject
    AgroalDataSource jdbc;

    @Inject
    Pool pool;

    private final ProviderSigner signer = new ProviderSigner(ProviderKeys.fromConfig());

    @Test
    void aBurstWrittenDueIsPaidOnceTheWorkersCatchUpNotAtTheNextScan() throws Exception {
        Db db = new Db(pool);
        List<String> orders = new ArrayList<>();
        for (int i = 0; i < BURST; i++) {
            String outTradeNo = Ids.unique("OOT");
            Api.createOrder(outTradeNo, "1.00", "CNY").then().statusCode(201);
            orders.add(outTradeNo);
        }
        List<String> turnedAway = new ArrayList<>();
        try (Connection connection = jdbc.getConnection(); Statement lock = connection.createStatement()) {
            // The first transition waits behind the lock and holds the worker that takes fresh callbacks.
            lock.execute("LOCK TABLES orders WRITE");
            try {
                // One after the other: each asks for room after the one before it was handed to the workers.
                for (String outTradeNo : orders) {
                    Send.payment(signer.wxPayment(outTradeNo, Ids.unique("42000"), 100, "SUCCESS", Instant.now()))
                            .then().statusCode(200);
                }
                turnedAway.addAll(db.rows("SELECT out_trade_no FROM pay_callback_log WHERE status = 0"
                                + " AND lease_token IS NULL AND out_trade_no IN (" + placeholders() + ")", orders.toArray())
                        .stream().map(row -> row.getString("out_trade_no")).toList());
                assertThat(turnedAway).as("callbacks written due for the scanner, the workers having no room")
                        .hasSizeGreaterThanOrEqualTo(BURST - 2);
            } finally {
                lock.execute("UNLOCK TABLES");
            }
        }
        await().atMost(Duration.ofSeconds(30))
                .untilAsserted(() -> assertThat(turnedAway).allSatisfy(order -> assertThat(Api.orderStatus(order)).isEqualTo("PAID")));
    }

    private static String placeholders() {
        return String.join(", ", Collections.nCopies(BURST, "?"));
    }
}
