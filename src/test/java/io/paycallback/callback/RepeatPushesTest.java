package io.paycallback.callback;

import io.agroal.api.AgroalDataSource;
import io.paycallback.testsupport.Concurrently;
import io.paycallback.testsupport.Db;
import io.paycallback.testsupport.Ids;
import io.paycallback.testsupport.ManagementPort;
import io.paycallback.testsupport.ProviderKeys;
import io.paycallback.testsupport.ProviderSigner;
import io.paycallback.testsupport.Send;
import io.paycallback.testsupport.SignedCallback;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Repeat pushes answered from memory (ledger.KnownReservations), which the rest of the suite switches off so that
 * its duplicates keep exercising the database's unique key.
 */
@QuarkusTest
@TestProfile(RepeatPushesTest.Remembering.class)
class RepeatPushesTest {

    public static class Remembering implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("paycallback.callback.known-reservations.size", "1000");
        }
    }

    private static final Pattern HITS = Pattern.compile(
            "paycallback_known_reservations_answered_total(?:\\{[^}]*})? ([0-9.E]+)");

    @Inject
    AgroalDataSource jdbc;

    @Inject
    Pool pool;

    private final ProviderSigner signer = new ProviderSigner(ProviderKeys.fromConfig());

    @Test
    void furtherRepeatsOfADuplicateAreAcknowledgedWhileTheTableTakesNoWrites() throws Exception {
        String transactionId = Ids.unique("42000");
        SignedCallback stored = signer.wxPayment(Ids.unique("ORD"), transactionId, 100, "SUCCESS", Instant.now());
        Send.payment(stored).then().statusCode(200);
        // The first repeat meets the unique key in the database; from then on the key is known.
        Send.payment(stored).then().statusCode(200);
        SignedCallback unseen = signer.stripePayment(Ids.unique("ORD"), Ids.unique("pi_"), 100, "usd", Instant.now());
        double hitsBefore = hits();

        try (Connection connection = jdbc.getConnection(); Statement lock = connection.createStatement()) {
            lock.execute("LOCK TABLES pay_callback_log WRITE");
            try {
                List<Integer> repeats = Concurrently.times(20, () -> Send.payment(stored).statusCode());
                assertThat(repeats).as("known repeats need no INSERT").hasSize(20).containsOnly(200);
                assertThat(Send.payment(unseen).statusCode())
                        .as("a callback never seen still needs its INSERT, which waits behind the lock past the"
                                + " store timeout: the provider is told to push again")
                        .isEqualTo(500);
            } finally {
                lock.execute("UNLOCK TABLES");
            }
        }
        assertThat(hits() - hitsBefore).isEqualTo(20);
        assertThat(rows(transactionId)).isEqualTo(1);
    }

    @Test
    void concurrentFirstPushesStillMeetOnTheUniqueKey() throws Exception {
        String tradeNo = Ids.unique("2026");
        SignedCallback callback = signer.alipayPayment(Ids.unique("ORD"), tradeNo, new BigDecimal("1.00"), "TRADE_SUCCESS");

        List<Integer> statuses = Concurrently.times(100, () -> Send.payment(callback).statusCode());
        List<Integer> later = Concurrently.times(20, () -> Send.payment(callback).statusCode());

        assertThat(statuses).hasSize(100).containsOnly(200);
        assertThat(later).hasSize(20).containsOnly(200);
        assertThat(rows(tradeNo)).isEqualTo(1);
    }

    @Test
    void refundRepeatsAreRememberedApartFromPayments() {
        String number = Ids.unique("42000");
        String outTradeNo = Ids.unique("ORD");
        SignedCallback payment = signer.wxPayment(outTradeNo, number, 500, "SUCCESS", Instant.now());
        SignedCallback refund = signer.wxRefund(outTradeNo, number, number, Ids.unique("5030"), 500, "SUCCESS", Instant.now());

        for (int i = 0; i < 3; i++) {
            Send.payment(payment).then().statusCode(200);
            Send.refund(refund).then().statusCode(200);
        }
        assertThat(rows(number)).isEqualTo(1);
        assertThat(new Db(pool).count("SELECT COUNT(*) FROM refund_callback_log WHERE channel = 'wxpay' AND refund_no = ?",
                number)).isEqualTo(1);
    }

    private long rows(String channelTradeNo) {
        return new Db(pool).count("SELECT COUNT(*) FROM pay_callback_log WHERE channel_trade_no = ?", channelTradeNo);
    }

    private static double hits() {
        String metrics = given().port(ManagementPort.get()).get("/q/metrics").then().statusCode(200).extract().asString();
        Matcher hit = HITS.matcher(metrics);
        assertThat(hit.find()).as("the repeats answered from memory are counted").isTrue();
        return Double.parseDouble(hit.group(1));
    }
}
