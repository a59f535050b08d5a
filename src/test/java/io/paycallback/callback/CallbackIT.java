package io.paycallback.callback;

import io.paycallback.config.LocalConfigFileGuard;
import io.paycallback.testsupport.EmbeddedDatabaseResource;
import io.paycallback.testsupport.ProviderKeys;
import io.paycallback.testsupport.ProviderSigner;
import io.paycallback.testsupport.Send;
import io.paycallback.testsupport.SignedCallback;
import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusIntegrationTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.Map;
import java.util.UUID;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs against the packaged application (the native binary under {@code -Dnative}): the ingest path end to end, with
 * the cryptography, JSON and SQL that a native image must have kept.
 */
@QuarkusIntegrationTest
@TestProfile(CallbackIT.Ports.class)
@QuarkusTestResource(value = EmbeddedDatabaseResource.class, restrictToAnnotatedClass = true)
class CallbackIT {

    /**
     * The packaged application runs in the prod profile: keep its management port off a running instance's 9000, and
     * the checkout's config/application.properties (a deployment's real settings) out of it.
     */
    public static class Ports implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("quarkus.management.port", String.valueOf(management()), LocalConfigFileGuard.IGNORE, "true");
        }

        static int management() {
            return Integer.getInteger("it.management-port", 9001);
        }
    }

    @Test
    void signedCallbacksOfEachProviderAreAcceptedAndForgedOnesRefused() {
        ProviderSigner signer = new ProviderSigner(ProviderKeys.fromConfig());
        String suffix = UUID.randomUUID().toString().replace("-", "").substring(0, 16);

        SignedCallback wx = signer.wxPayment("ORD-IT-" + suffix, "42000IT" + suffix, 100, "SUCCESS", Instant.now());
        assertThat(Send.payment(wx).then().statusCode(200).extract().asString()).contains("SUCCESS");
        SignedCallback stripe = signer.stripePayment("ORD-IT-" + suffix, "pi_IT" + suffix, 500, "jpy", Instant.now());
        Send.payment(stripe).then().statusCode(200);
        Send.payment(stripe).then().statusCode(200);
        Send.payment(new SignedCallback("stripe", Map.of("Stripe-Signature", "t=1,v1=00"), stripe.contentType(), stripe.body()))
                .then().statusCode(400);

        given().port(Ports.management()).get("/q/health/ready").then().statusCode(200);
        String metrics = given().port(Ports.management()).get("/q/metrics").then().statusCode(200).extract().asString();
        assertThat(metrics).contains("outcome=\"duplicate\"").contains("outcome=\"bad_signature\"");
    }
}
