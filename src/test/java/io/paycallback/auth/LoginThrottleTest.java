package io.paycallback.auth;

import io.paycallback.testsupport.Api;
import io.paycallback.testsupport.ManagementPort;
import io.paycallback.testsupport.SettableClock;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;
import java.util.Set;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Wrong bearer tokens and console logins from one address are slowed down with the default settings: the sixth
 * failure within a minute is answered 429 with Retry-After, even for a right token, and the wait doubles.
 */
@QuarkusTest
@TestProfile(LoginThrottleTest.Defaults.class)
class LoginThrottleTest {

    public static class Defaults implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("paycallback.login-throttle.failures", "5");
        }

        @Override
        public Set<Class<?>> getEnabledAlternatives() {
            return Set.of(SettableClock.Producer.class);
        }
    }

    @Inject
    SettableClock.Producer clocks;

    @Test
    void anAddressThatFailsTooOftenIsHeldBackWithADoublingWait() {
        clocks.clock().freeze();
        try {
            heldBackWithADoublingWait();
        } finally {
            clocks.clock().thaw();
        }
    }

    private void heldBackWithADoublingWait() {
        for (int i = 0; i < 5; i++) {
            Api.as("wrong-token-number-" + i).get("/admin/audit").then().statusCode(401);
        }
        Response held = Api.as(Api.ALICE_TOKEN).get("/admin/audit");
        assertThat(held.statusCode()).as("even a right token waits").isEqualTo(429);
        assertThat(held.header("Retry-After")).isEqualTo("1");
        given().get("/admin/audit").then().statusCode(401);
        given().post("/pay/callback/wxpay").then().statusCode(org.hamcrest.Matchers.not(429));

        clocks.clock().advance(Duration.ofMillis(1_100));
        Api.as(Api.ALICE_TOKEN).get("/admin/audit").then().statusCode(200);
        given().redirects().follow(false).formParam("token", "not-an-operator-token").post("/admin/console/login")
                .then().statusCode(401);
        Response login = given().redirects().follow(false).formParam("token", Api.ALICE_TOKEN).post("/admin/console/login");
        assertThat(login.statusCode()).isEqualTo(429);
        assertThat(login.header("Retry-After")).isEqualTo("2");
        Api.as("pck_abcdefgh_0123456789abcdef0123456789abcdef0123456").get("/internal/orders/x").then().statusCode(429);

        String metrics = given().port(ManagementPort.get()).get("/q/metrics").then().statusCode(200).extract().asString();
        assertThat(metrics).containsPattern("paycallback_auth_failures_total\\{kind=\"bearer\"[^}]*} 5\\.0")
                .containsPattern("paycallback_auth_failures_total\\{kind=\"console-login\"[^}]*} 1\\.0")
                .containsPattern("paycallback_auth_throttled_total\\{kind=\"bearer\"[^}]*} 1\\.0")
                .containsPattern("paycallback_auth_throttled_total\\{kind=\"api-key\"[^}]*} 1\\.0");
    }
}
