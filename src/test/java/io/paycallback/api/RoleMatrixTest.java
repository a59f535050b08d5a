package io.paycallback.api;

import io.paycallback.auth.MerchantScope;
import io.paycallback.auth.Roles;
import io.paycallback.console.ConsoleGuard;
import io.paycallback.console.ConsoleSessions;
import io.paycallback.testsupport.Keycloak;
import io.paycallback.testsupport.WithKeycloak;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.response.Response;
import io.restassured.specification.RequestSpecification;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link AccessMatrixTest}'s operations again, as the identity provider's operator and viewer (Keycloak's
 * alice-operator and vic-viewer: bearer tokens for the admin API, their console sessions for the console). Each is
 * classified: a viewer may read (every {@code GET}, and the few other operations named in {@link #VIEWER_MAY}) and
 * gets 403 from everything else, which an operator may do; the order service's API is neither's; the sign-in pages
 * are everyone's. A new operation is classified by its verb, so a mutating {@code GET} would be caught only by review:
 * the admin API has none, and the console's pages change nothing.
 */
@QuarkusTest
@TestProfile(WithKeycloak.class)
class RoleMatrixTest {

    /** Operations a viewer may call although they are not GETs: they change nothing of the service. */
    static final Set<String> VIEWER_MAY = Set.of("POST /admin/console/logout");
    /** Everyone's: the forms and the flows that sign in. */
    static final Set<String> SIGN_IN = Set.of("GET /admin/console/login", "POST /admin/console/login",
            "GET /admin/console/oidc", "GET /admin/console/oidc/logout");

    private enum Role { OPERATOR, VIEWER }

    @Inject
    ConsoleSessions sessions;

    @BeforeEach
    void keycloak() {
        Keycloak.assumeRunning();
    }

    @Test
    void aViewerReadsWhatAnOperatorReadsAndDoesNothingAnOperatorDoes() throws Exception {
        List<AccessMatrixTest.Operation> operations = new ArrayList<>(AccessMatrixTest.documented());
        operations.addAll(AccessMatrixTest.consoleRoutes());
        String operatorToken = Keycloak.token(Keycloak.OPERATOR);
        String viewerToken = Keycloak.token(Keycloak.VIEWER);
        ConsoleSessions.Opened operatorSession = sessions.openForProvider(Keycloak.OPERATOR, Roles.OPERATOR, MerchantScope.ALL)
                .orElseThrow();
        ConsoleSessions.Opened viewerSession = sessions.openForProvider(Keycloak.VIEWER, Roles.VIEWER, MerchantScope.ALL)
                .orElseThrow();

        List<String> wrong = new ArrayList<>();
        TreeSet<String> viewerMay = new TreeSet<>();
        for (AccessMatrixTest.Operation operation : operations) {
            String name = operation.name();
            if (SIGN_IN.contains(name)) {
                continue;
            }
            boolean internal = operation.template().startsWith("/internal/");
            boolean reads = operation.verb().equals("GET") || VIEWER_MAY.contains(name);
            if (reads && !internal) {
                viewerMay.add(name);
            }
            for (Role role : Role.values()) {
                boolean console = operation.template().startsWith(ConsoleSessions.PATH);
                ConsoleSessions.Opened session = role == Role.OPERATOR ? operatorSession : viewerSession;
                RequestSpecification request = given().redirects().follow(false);
                if (console) {
                    request.cookie(ConsoleSessions.COOKIE, session.cookie())
                            .header(ConsoleGuard.CSRF_HEADER, session.session().csrf());
                } else {
                    request.header("Authorization", "Bearer " + (role == Role.OPERATOR ? operatorToken : viewerToken));
                    if (!operation.verb().equals("GET")) {
                        request.contentType("application/json").body("{}");
                    }
                }
                Response response = request.request(operation.verb(), operation.path());
                int status = response.statusCode();
                boolean allowed = status != 401 && status != 403 && status != 302 && status < 500;
                boolean expectAllowed = !internal && (role == Role.OPERATOR || reads);
                if (allowed != expectAllowed || !expectAllowed && status != 403) {
                    wrong.add(name + " as " + role + ": " + status + ", expected " + (expectAllowed ? "allowed" : "403"));
                }
            }
        }
        assertThat(wrong).isEmpty();
        assertThat(viewerMay).as("a viewer reaches every page").contains("GET /admin/console", "GET /admin/overview",
                "GET /admin/console/dead", "GET /admin/audit");
    }
}
