package io.paycallback.registry;

import io.paycallback.inbox.CallbackTable;
import io.paycallback.lease.Scanner;
import io.paycallback.testsupport.AgainstFakeProviders;
import io.paycallback.testsupport.Api;
import io.paycallback.testsupport.Ids;
import io.paycallback.testsupport.Send;
import io.paycallback.testsupport.SignedCallback;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;

/**
 * A platform taken from nothing to its first paid sub-merchant through the admin API, with no restart: its keys
 * rotated while events signed with the old and the new secret arrive, a merchant disabled and enabled again, and what
 * the quarantine held meanwhile stored once it serves. Secrets never come back out.
 */
@QuarkusTest
class RegistryApiTest extends AgainstFakeProviders {

    @Inject
    Scanner scanner;

    private static final String OLD_SECRET = "whsec_registryTestOldSecret0123456789";
    private static final String NEW_SECRET = "whsec_registryTestNewSecret9876543210";

    private static String id(String prefix) {
        return Ids.unique(prefix).toLowerCase().replaceAll("[^a-z0-9-]", "").substring(0, 20);
    }

    private static String account() {
        return "acct_" + Ids.unique("R").replaceAll("[^A-Za-z0-9]", "");
    }

    private static io.restassured.response.Response put(String path, Map<String, Object> body) {
        return Api.as(Api.ALICE_TOKEN).contentType(ContentType.JSON).body(body).put(path);
    }

    private static io.restassured.response.Response post(String path, Map<String, Object> body) {
        return Api.as(Api.ALICE_TOKEN).contentType(ContentType.JSON).body(body).post(path);
    }

    private SignedCallback payment(String account, String outTradeNo, String secret) {
        Instant now = Instant.now();
        return signer.stripeConnect(account, signer.stripePayment(outTradeNo, Ids.unique("pi_"), 1999, "usd", now), now,
                secret);
    }

    /** A platform with Stripe keys and one sub-merchant, made through the API. */
    private String[] platformWithSubMerchant() {
        String platform = id("mkt");
        String merchant = id("shop");
        String account = account();
        post("/admin/registry/platforms", Map.of("id", platform)).then().statusCode(201);
        put("/admin/registry/platforms/" + platform + "/accounts/stripe", Map.of("webhookSecrets", List.of(OLD_SECRET)))
                .then().statusCode(200);
        post("/admin/registry/merchants", Map.of("id", merchant)).then().statusCode(201);
        put("/admin/registry/merchants/" + merchant + "/accounts/stripe",
                Map.of("mode", "sub-merchant", "platform", platform, "subId", account)).then().statusCode(200);
        return new String[]{platform, merchant, account};
    }

    @Test
    void aPlatformGoesFromNothingToItsFirstPaidSubMerchantWithoutARestart() {
        String[] made = platformWithSubMerchant();
        String outTradeNo = Ids.unique("RG");
        Api.createOrder(made[1], outTradeNo, "19.99", "USD").then().statusCode(201);

        Send.post("/pay/callback/stripe/" + made[0], payment(made[2], outTradeNo, OLD_SECRET)).then().statusCode(200);

        await().atMost(WAIT).until(() -> "PAID".equals(Api.orderStatus(made[1], outTradeNo)));
        assertThat(db.rows("SELECT merchant_id FROM pay_callback_log WHERE out_trade_no = ?", outTradeNo))
                .singleElement().satisfies(row -> assertThat(row.getString("merchant_id")).isEqualTo(made[1]));
    }

    @Test
    void aSecretRotatedWhileEventsFlowIsAcceptedBesideTheOldUntilTheOldRetires() {
        String[] made = platformWithSubMerchant();
        String path = "/pay/callback/stripe/" + made[0];
        post("/admin/registry/platforms/" + made[0] + "/accounts/stripe/keys", Map.of("value", NEW_SECRET))
                .then().statusCode(200);

        for (String secret : List.of(OLD_SECRET, NEW_SECRET)) {
            String outTradeNo = Ids.unique("RR");
            Api.createOrder(made[1], outTradeNo, "19.99", "USD").then().statusCode(201);
            Send.post(path, payment(made[2], outTradeNo, secret)).then().statusCode(200);
        }

        post("/admin/registry/platforms/" + made[0] + "/accounts/stripe/keys/" + Fingerprint.of(OLD_SECRET) + "/retire",
                Map.of()).then().statusCode(200);
        String late = Ids.unique("RL");
        Api.createOrder(made[1], late, "19.99", "USD").then().statusCode(201);
        Send.post(path, payment(made[2], late, OLD_SECRET)).then().statusCode(400);
        Send.post(path, payment(made[2], late, NEW_SECRET)).then().statusCode(200);
        // The last live secret cannot be retired.
        post("/admin/registry/platforms/" + made[0] + "/accounts/stripe/keys/" + Fingerprint.of(NEW_SECRET) + "/retire",
                Map.of()).then().statusCode(400);
    }

    @Test
    void aDisabledSubMerchantsEventsAreHeldAndStoredWhenItIsEnabledAgain() {
        String[] made = platformWithSubMerchant();
        String outTradeNo = Ids.unique("RD");
        Api.createOrder(made[1], outTradeNo, "19.99", "USD").then().statusCode(201);
        post("/admin/registry/merchants/" + made[1] + "/disable", Map.of()).then().statusCode(200)
                .body("owner.enabled", equalTo(false));

        Send.post("/pay/callback/stripe/" + made[0], payment(made[2], outTradeNo, OLD_SECRET)).then().statusCode(400);
        assertThat(db.count("SELECT COUNT(*) FROM quarantine WHERE merchant_id = ?", made[0])).isEqualTo(1);
        assertThat(Api.orderStatus(made[1], outTradeNo)).isEqualTo("PENDING");

        post("/admin/registry/merchants/" + made[1] + "/enable", Map.of()).then().statusCode(200).body("healed", equalTo(1));
        scanner.drain(CallbackTable.PAYMENT.leased());
        await().atMost(WAIT).until(() -> "PAID".equals(Api.orderStatus(made[1], outTradeNo)));
        assertThat(db.count("SELECT COUNT(*) FROM quarantine WHERE merchant_id = ?", made[0])).isZero();
    }

    @Test
    void aSubMerchantAddedAfterItsFirstPaymentArrivedHealsWhatWasHeld() {
        String platform = id("mkt");
        String merchant = id("late");
        String account = account();
        post("/admin/registry/platforms", Map.of("id", platform)).then().statusCode(201);
        put("/admin/registry/platforms/" + platform + "/accounts/stripe", Map.of("webhookSecrets", List.of(OLD_SECRET)))
                .then().statusCode(200);
        String outTradeNo = Ids.unique("RH");
        SignedCallback early = payment(account, outTradeNo, OLD_SECRET);

        // The platform has no sub-merchant yet: held, answered so that Stripe retries, nothing filed under the platform.
        Send.post("/pay/callback/stripe/" + platform, early).then().statusCode(400);
        assertThat(db.count("SELECT COUNT(*) FROM pay_callback_log WHERE merchant_id = ?", platform)).isZero();

        post("/admin/registry/merchants", Map.of("id", merchant)).then().statusCode(201);
        Api.createOrder(merchant, outTradeNo, "19.99", "USD").then().statusCode(201);
        put("/admin/registry/merchants/" + merchant + "/accounts/stripe",
                Map.of("mode", "sub-merchant", "platform", platform, "subId", account)).then().statusCode(200)
                .body("healed", equalTo(1));
        scanner.drain(CallbackTable.PAYMENT.leased());

        await().atMost(WAIT).until(() -> "PAID".equals(Api.orderStatus(merchant, outTradeNo)));
        // Stripe's own retry of the same event is now a duplicate, answered success.
        Send.post("/pay/callback/stripe/" + platform, early).then().statusCode(200);
        assertThat(db.count("SELECT COUNT(*) FROM pay_callback_log WHERE out_trade_no = ?", outTradeNo)).isEqualTo(1);
    }

    @Test
    void secretsAreShownByFingerprintOnlyAndEveryChangeIsRecorded() {
        String[] made = platformWithSubMerchant();
        String platform = Api.as(Api.ALICE_TOKEN).get("/admin/registry/platforms/" + made[0]).then().statusCode(200)
                .body("source", equalTo("database"))
                .body("accounts[0].keys[0].fingerprint", equalTo(Fingerprint.of(OLD_SECRET)))
                .extract().asString();
        assertThat(platform).doesNotContain(OLD_SECRET);
        String changes = Api.as(Api.ALICE_TOKEN).get("/admin/registry/platforms/" + made[0] + "/changes").then()
                .statusCode(200).extract().asString();
        assertThat(changes).contains("platform.create", "account.put", "alice").doesNotContain(OLD_SECRET);
        byte[] stored = db.first("SELECT secrets FROM registry_accounts WHERE owner_id = ?", made[0])
                .getBuffer("secrets").getBytes();
        assertThat(new String(stored, java.nio.charset.StandardCharsets.ISO_8859_1)).doesNotContain("whsec_");
        assertThat(db.count("SELECT COUNT(*) FROM audit_log WHERE action = 'registry_change' AND target LIKE ?",
                "platform:" + made[0] + "%")).isEqualTo(2);
    }

    @Test
    void aChangeThatAStartWouldRefuseIsRefusedNamingTheField() {
        String[] made = platformWithSubMerchant();
        String other = id("shop");
        post("/admin/registry/merchants", Map.of("id", other)).then().statusCode(201);
        put("/admin/registry/merchants/" + other + "/accounts/stripe",
                Map.of("mode", "sub-merchant", "platform", made[0], "subId", "not-an-account")).then().statusCode(400)
                .body("error", org.hamcrest.Matchers.containsString("account"));
        put("/admin/registry/merchants/" + other + "/accounts/stripe",
                Map.of("mode", "sub-merchant", "platform", made[0], "subId", made[2])).then().statusCode(400)
                .body("error", org.hamcrest.Matchers.containsString(made[1]));
        put("/admin/registry/merchants/" + other + "/accounts/stripe", Map.of("webhookSecrets", List.of("sk_live_nope")))
                .then().statusCode(400).body("error", org.hamcrest.Matchers.containsString("webhook-secrets"));
        put("/admin/registry/merchants/" + other + "/accounts/stripe", Map.of("mchid", "1900000109")).then().statusCode(400)
                .body("error", org.hamcrest.Matchers.containsString("mchid is not a field"));
        post("/admin/registry/merchants", Map.of("id", made[0])).then().statusCode(400);
    }

    @Test
    void merchantsDeclaredInPropertiesAreListedAndReadOnly() {
        Api.as(Api.ALICE_TOKEN).get("/admin/registry/merchants/default").then().statusCode(200)
                .body("source", equalTo("configuration"));
        post("/admin/registry/merchants/default/disable", Map.of()).then().statusCode(400);
        post("/admin/registry/merchants", Map.of("id", "default")).then().statusCode(400);
    }
}
