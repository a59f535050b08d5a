package io.paycallback.callback;

import io.agroal.api.AgroalDataSource;
import io.paycallback.testsupport.ProviderKeys;
import io.paycallback.testsupport.ProviderSigner;
import io.paycallback.testsupport.Send;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/** The reactive pool points at a port where nothing listens: every reservation fails, and nothing may be acknowledged. */
@QuarkusTest
@TestProfile(DatabaseDownTest.Unreachable.class)
class DatabaseDownTest {

    public static class Unreachable implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("quarkus.datasource.reactive.url", "mysql://127.0.0.1:1/paycallback");
        }
    }

    @Inject
    AgroalDataSource jdbc;

    @Test
    void callbacksThatCannotBeStoredAreAnsweredFailInEachProvidersFormat() throws Exception {
        ProviderSigner signer = new ProviderSigner(ProviderKeys.fromConfig());
        String transactionId = "42000" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
        String tradeNo = "2026" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
        String paymentIntent = "pi_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);

        Response wx = Send.payment(signer.wxPayment("ORD-DOWN-1", transactionId, 100, "SUCCESS", Instant.now()));
        assertThat(wx.statusCode()).isEqualTo(500);
        assertThat(wx.body().asString()).contains("\"code\":\"FAIL\"");

        Response alipay = Send.payment(signer.alipayPayment("ORD-DOWN-2", tradeNo, new BigDecimal("1.00"), "TRADE_SUCCESS"));
        assertThat(alipay.statusCode()).isEqualTo(500);
        assertThat(alipay.body().asString()).isEqualTo("fail");

        Send.payment(signer.stripePayment("ORD-DOWN-3", paymentIntent, 100, "usd", Instant.now())).then().statusCode(500);

        try (Connection connection = jdbc.getConnection();
             PreparedStatement count = connection.prepareStatement(
                     "SELECT COUNT(*) FROM pay_callback_log WHERE channel_trade_no IN (?, ?, ?)")) {
            count.setString(1, transactionId);
            count.setString(2, tradeNo);
            count.setString(3, paymentIntent);
            try (ResultSet rows = count.executeQuery()) {
                rows.next();
                assertThat(rows.getLong(1)).isZero();
            }
        }
    }
}
