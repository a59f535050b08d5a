package io.paycallback.testsupport;

import io.restassured.response.Response;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.Assumptions;

import java.util.Optional;

import static io.restassured.RestAssured.given;

/** The realm of deploy/keycloak/realm-paycallback.json as the tests use it: its users, and tokens from it. */
public final class Keycloak {

    /** Every group, all merchants. */
    public static final String OPERATOR = "alice-operator";
    public static final String VIEWER = "vic-viewer";
    /** An operator whose merchants claim names {@link #SCOPED_MERCHANT} only. */
    public static final String SCOPED = "sam-scoped";
    public static final String SCOPED_MERCHANT = "kc-scoped";
    /** A user of the realm in no group of pay-callback's. */
    public static final String NOBODY = "nora-nobody";
    /** Operators' tooling: tokens for the admin API by password grant, with pay-callback's audience. */
    public static final String CLI = "pay-callback-cli";
    /** As {@link #CLI}, but its tokens expire after 2 s. */
    public static final String CLI_SHORT = "pay-callback-cli-short";
    /** Another service's client: its tokens lack pay-callback's audience. */
    public static final String OTHER_SERVICE = "another-service";

    private Keycloak() {
    }

    /** Skips the test when Keycloak did not start (and -Dkeycloak.required was not set: then nothing started). */
    public static void assumeRunning() {
        Optional<String> unavailable = ConfigProvider.getConfig().getOptionalValue(KeycloakResource.UNAVAILABLE, String.class);
        Assumptions.assumeTrue(unavailable.isEmpty(), () -> "no Keycloak: " + unavailable.orElse(""));
    }

    /** The realm's issuer, e.g. http://127.0.0.1:40123/realms/paycallback. */
    public static String issuer() {
        return ConfigProvider.getConfig().getValue("quarkus.oidc.auth-server-url", String.class);
    }

    public static String password(String user) {
        return user + "-password";
    }

    /** An access token for {@code user} from {@code client} by the password grant. */
    public static String token(String user, String client) {
        Response response = given().baseUri(issuer()).port(-1).formParam("grant_type", "password")
                .formParam("client_id", client).formParam("username", user).formParam("password", password(user))
                .formParam("scope", "openid").post("/protocol/openid-connect/token");
        response.then().statusCode(200);
        return response.path("access_token");
    }

    public static String token(String user) {
        return token(user, CLI);
    }
}
