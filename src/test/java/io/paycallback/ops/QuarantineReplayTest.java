package io.paycallback.ops;

import io.paycallback.inbox.CallbackTable;
import io.paycallback.lease.Scanner;
import io.paycallback.testsupport.Api;
import io.paycallback.testsupport.Db;
import io.paycallback.testsupport.Ids;
import io.paycallback.testsupport.ProviderKeys;
import io.paycallback.testsupport.ProviderSigner;
import io.paycallback.testsupport.SignedCallback;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.specification.RequestSpecification;
import io.vertx.core.buffer.Buffer;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;

/**
 * A quarantined callback parsed again once the parser reads it: stored like its push, released, audited. The parser
 * fix is played by quarantining a body today's parser reads.
 */
@QuarkusTest
class QuarantineReplayTest {

    private static final String OPERATOR = "test-operator-token-alice";

    @Inject
    Pool pool;
    @Inject
    Scanner scanner;

    private Db db;
    private ProviderSigner signer;

    @BeforeEach
    void setUp() {
        db = new Db(pool);
        signer = new ProviderSigner(ProviderKeys.fromConfig());
    }

    @Test
    void aBodyThatReadsNowIsStoredLikeItsPushReleasedAndAudited() {
        String outTradeNo = Ids.unique("ORD");
        Api.createOrder(outTradeNo, "88.00", "CNY").then().statusCode(201);
        SignedCallback callback = signer.wxPayment(outTradeNo, Ids.unique("42000"), 8800, "SUCCESS", Instant.now());
        long id = quarantine("wxpay", callback.body());

        operator().post("/admin/quarantine/" + id + "/replay").then().statusCode(202)
                .body("result", equalTo("stored"));
        scanner.drain(CallbackTable.PAYMENT.leased());

        await().atMost(Duration.ofSeconds(20)).until(() -> "PAID".equals(Api.orderStatus(outTradeNo)));
        assertThat(db.count("SELECT COUNT(*) FROM quarantine WHERE id = ?", id)).isZero();
        assertThat(db.count("SELECT COUNT(*) FROM audit_log WHERE action = 'quarantine_replay' AND target = ?"
                + " AND actor = 'alice'", "quarantine#" + id)).isEqualTo(1);
        operator().post("/admin/quarantine/" + id + "/replay").then().statusCode(404);
    }

    @Test
    void aBodyThatStillDoesNotParseStaysAndOnlyOperatorsMayAsk() {
        long id = quarantine("stripe", ("{\"id\":\"" + Ids.unique("evt_") + "\",\"type\":\"payment_intent.succeeded\",\"data\":{}}")
                .getBytes(StandardCharsets.UTF_8));
        given().header("Authorization", "Bearer test-order-service-token")
                .post("/admin/quarantine/" + id + "/replay").then().statusCode(403);
        operator().post("/admin/quarantine/" + id + "/replay").then().statusCode(422);
        assertThat(db.count("SELECT COUNT(*) FROM quarantine WHERE id = ?", id)).isEqualTo(1);
    }

    private static RequestSpecification operator() {
        return given().header("Authorization", "Bearer " + OPERATOR);
    }

    private long quarantine(String channel, byte[] body) {
        pool.preparedQuery("INSERT INTO quarantine (merchant_id, channel, kind, reason, body_hash, body_length, raw_body,"
                        + " created_at) VALUES ('default', ?, 'PAYMENT', 'unreadable before the parser fix', ?, ?, ?, NOW(3))")
                .execute(Tuple.of(channel, sha256(body), body.length, Buffer.buffer(body))).await().indefinitely();
        return db.first("SELECT id FROM quarantine WHERE body_hash = ?", sha256(body)).getLong("id");
    }

    private static String sha256(byte[] body) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(body));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
