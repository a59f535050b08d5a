package io.paycallback.outbox;

import io.paycallback.testsupport.Api;
import io.paycallback.testsupport.Db;
import io.paycallback.testsupport.ProviderKeys;
import io.paycallback.testsupport.ProviderSigner;
import io.paycallback.testsupport.Send;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The sink takes only order.paid here: an alert has no destination, so it is recorded as delivered and logged. */
@QuarkusTest
@TestProfile(LogDestinationTest.OnlyOrderPaid.class)
class LogDestinationTest {

    public static class OnlyOrderPaid implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("paycallback.downstream.destinations.sink.events", "order.paid");
        }
    }

    @Inject
    Pool pool;

    @Test
    void anEventNoDestinationSubscribesToIsRecordedDeliveredAndLogged() {
        Db db = new Db(pool);
        String outTradeNo = "ORD" + UUID.randomUUID().toString().replace("-", "").substring(0, 20);
        String transactionId = "42000" + UUID.randomUUID().toString().replace("-", "").substring(0, 20);
        Api.createOrder(outTradeNo, "88.00", "CNY").then().statusCode(201);
        Send.payment(new ProviderSigner(ProviderKeys.fromConfig()).wxPayment(outTradeNo, transactionId, 1, "SUCCESS", Instant.now()))
                .then().statusCode(200);
        long id = db.first("SELECT id FROM pay_callback_log WHERE channel_trade_no = ?", transactionId).getLong("id");

        await().atMost(Duration.ofSeconds(20)).until(() -> db.count(
                "SELECT COUNT(*) FROM outbox WHERE source = ? AND type = 'alert'", "pay:" + id) == 1);
        Row alert = db.first("SELECT destination, status, lease_token FROM outbox WHERE source = ?", "pay:" + id);
        assertThat(alert.getString("destination")).isEqualTo(Outbox.LOG_DESTINATION);
        assertThat(alert.getInteger("status")).isEqualTo(1);
        await().atMost(Duration.ofSeconds(10)).until(() -> Files.readString(Path.of("target/quarkus-test.log"), StandardCharsets.UTF_8)
                .contains("Downstream event pay:" + id + ":alert:log"));
    }
}
