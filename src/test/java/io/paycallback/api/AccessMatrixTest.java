package io.paycallback.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import io.paycallback.console.ConsoleGuard;
import io.paycallback.console.ConsoleSessions;
import io.paycallback.testsupport.Api;
import io.paycallback.testsupport.Ids;
import io.paycallback.testsupport.ManagementPort;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import io.restassured.specification.RequestSpecification;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import org.junit.jupiter.api.Test;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.IntPredicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static io.restassured.RestAssured.given;
import static java.util.Map.entry;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every operation of the OpenAPI document and every route of the console, called as each kind of caller: anonymous,
 * an operator, an order-service key scoped to another merchant, and one scoped to the merchant the call is about.
 * Each operation is classified below; one that is not (a new endpoint) fails the test until it is, and so does a
 * classified one that no longer exists. Provider callbacks are in neither list: they carry no credential.
 */
@QuarkusTest
class AccessMatrixTest {

    /** What one kind of caller must get. */
    private enum Outcome {
        UNAUTHORIZED(status -> status == 401),
        FORBIDDEN(status -> status == 403),
        /** As an order that does not exist: another merchant's order. */
        HIDDEN(status -> status == 404),
        SUCCESS(status -> status >= 200 && status < 300),
        /** Past authentication and authorisation: whatever the call itself answers, but no server error. */
        ALLOWED(status -> status != 401 && status != 403 && status != 429 && status != 302 && status < 500),
        /** The console's sign-in page, not the page. */
        TO_LOGIN(status -> status == 302),
        ANSWERED(status -> status < 500);

        private final IntPredicate accepts;

        Outcome(IntPredicate accepts) {
            this.accepts = accepts;
        }
    }

    private enum Caller { ANONYMOUS, OPERATOR, OTHER_MERCHANTS_KEY, OWN_KEY }

    /** The outcome for each caller, in the order of {@link Caller}. */
    private record Access(Outcome anonymous, Outcome operator, Outcome otherKey, Outcome ownKey) {
        Outcome of(Caller caller) {
            return switch (caller) {
                case ANONYMOUS -> anonymous;
                case OPERATOR -> operator;
                case OTHER_MERCHANTS_KEY -> otherKey;
                case OWN_KEY -> ownKey;
            };
        }
    }

    private static final Access ORDERS = new Access(Outcome.UNAUTHORIZED, Outcome.FORBIDDEN, Outcome.HIDDEN, Outcome.SUCCESS);
    private static final Access ADMIN = new Access(Outcome.UNAUTHORIZED, Outcome.ALLOWED, Outcome.FORBIDDEN, Outcome.FORBIDDEN);
    /** The console takes its session cookie only: a bearer key is as good as nothing there. */
    private static final Access CONSOLE = new Access(Outcome.TO_LOGIN, Outcome.ALLOWED, Outcome.TO_LOGIN, Outcome.TO_LOGIN);
    private static final Access PUBLIC = new Access(Outcome.ANSWERED, Outcome.ANSWERED, Outcome.ANSWERED, Outcome.ANSWERED);
    /**
     * The sign-in through the identity provider, which this profile has none of: nobody gets past it (with one,
     * RoleMatrixTest and the browser test take it).
     */
    private static final Access NO_PROVIDER = new Access(Outcome.UNAUTHORIZED, Outcome.UNAUTHORIZED, Outcome.UNAUTHORIZED,
            Outcome.UNAUTHORIZED);

    private static final Map<String, Access> MATRIX = Map.ofEntries(
            entry("POST /internal/orders", ORDERS),
            entry("GET /internal/orders/{outTradeNo}", ORDERS),
            entry("POST /internal/orders/{outTradeNo}/close", ORDERS),

            entry("GET /admin/api-keys", ADMIN),
            entry("POST /admin/api-keys", ADMIN),
            entry("POST /admin/api-keys/{id}/revoke", ADMIN),
            entry("GET /admin/audit", ADMIN),
            entry("GET /admin/callbacks", ADMIN),
            entry("GET /admin/callbacks/{kind}/{id}", ADMIN),
            entry("POST /admin/callbacks/{kind}/{id}/replay", ADMIN),
            entry("POST /admin/callbacks/{kind}/{id}/requeue", ADMIN),
            entry("GET /admin/dead-letters", ADMIN),
            entry("POST /admin/dead-letters/{table}/{id}/requeue", ADMIN),
            entry("POST /admin/dead-letters/{table}/{id}/resolve", ADMIN),
            entry("GET /admin/destinations", ADMIN),
            entry("GET /admin/destinations/{name}", ADMIN),
            entry("POST /admin/destinations/{name}/disable", ADMIN),
            entry("POST /admin/destinations/{name}/enable", ADMIN),
            entry("POST /admin/destinations/{name}/probe", ADMIN),
            entry("POST /admin/destinations/{name}/replay", ADMIN),
            entry("GET /admin/orders", ADMIN),
            entry("GET /admin/outbox", ADMIN),
            entry("GET /admin/outbox/{id}/attempts", ADMIN),
            entry("GET /admin/overview", ADMIN),
            entry("GET /admin/trends", ADMIN),
            entry("GET /admin/quarantine", ADMIN),
            entry("POST /admin/quarantine/{id}/replay", ADMIN),
            entry("GET /admin/registry", ADMIN),
            entry("POST /admin/registry/rewrap", ADMIN),
            entry("GET /admin/registry/{kind}", ADMIN),
            entry("POST /admin/registry/{kind}", ADMIN),
            entry("GET /admin/registry/{kind}/{id}", ADMIN),
            entry("DELETE /admin/registry/{kind}/{id}/accounts/{provider}", ADMIN),
            entry("PUT /admin/registry/{kind}/{id}/accounts/{provider}", ADMIN),
            entry("POST /admin/registry/{kind}/{id}/accounts/{provider}/keys", ADMIN),
            entry("POST /admin/registry/{kind}/{id}/accounts/{provider}/keys/{serial}/retire", ADMIN),
            entry("GET /admin/registry/{kind}/{id}/changes", ADMIN),
            entry("POST /admin/registry/{kind}/{id}/disable", ADMIN),
            entry("POST /admin/registry/{kind}/{id}/enable", ADMIN),
            entry("POST /admin/requeue", ADMIN),
            entry("GET /admin/statements/discrepancies", ADMIN),
            entry("POST /admin/statements/discrepancies/{id}/resolve", ADMIN),
            entry("GET /admin/statements/runs", ADMIN),
            entry("POST /admin/statements/runs", ADMIN),
            entry("POST /admin/{table}/{id}/requeue", ADMIN),

            entry("GET /admin/console/login", PUBLIC),
            entry("POST /admin/console/login", PUBLIC),
            entry("POST /admin/console/logout", CONSOLE),
            entry("GET /admin/console/oidc", NO_PROVIDER),
            entry("GET /admin/console/oidc/logout", NO_PROVIDER),
            entry("GET /admin/console", CONSOLE),
            entry("GET /admin/console/trends", CONSOLE),
            entry("GET /admin/console/search", CONSOLE),
            entry("POST /admin/console/orders/{outTradeNo}/close", CONSOLE),
            entry("GET /admin/console/audit", CONSOLE),
            entry("GET /admin/console/bulk", CONSOLE),
            entry("POST /admin/console/bulk/dry-run", CONSOLE),
            entry("POST /admin/console/bulk/recount", CONSOLE),
            entry("POST /admin/console/bulk/apply", CONSOLE),
            entry("GET /admin/console/dead", CONSOLE),
            entry("GET /admin/console/callbacks/{kind}/{id}/body", CONSOLE),
            entry("GET /admin/console/outbox/{id}/attempts", CONSOLE),
            entry("POST /admin/console/callbacks/{kind}/{id}/requeue", CONSOLE),
            entry("POST /admin/console/outbox/{id}/requeue", CONSOLE),
            entry("POST /admin/console/dead-letters/{table}/{id}/requeue", CONSOLE),
            entry("POST /admin/console/dead-letters/{table}/{id}/resolve", CONSOLE),
            entry("POST /admin/console/callbacks/{kind}/{id}/replay", CONSOLE),
            entry("GET /admin/console/destinations", CONSOLE),
            entry("GET /admin/console/destinations/{name}", CONSOLE),
            entry("POST /admin/console/destinations/{name}/disable", CONSOLE),
            entry("POST /admin/console/destinations/{name}/enable", CONSOLE),
            entry("POST /admin/console/destinations/{name}/probe", CONSOLE),
            entry("POST /admin/console/destinations/replay/dry-run", CONSOLE),
            entry("POST /admin/console/destinations/replay/apply", CONSOLE),
            entry("GET /admin/console/merchants", CONSOLE),
            entry("GET /admin/console/merchants/{kind}/{id}", CONSOLE),
            entry("POST /admin/console/merchants/create", CONSOLE),
            entry("POST /admin/console/merchants/{kind}/{id}/enable", CONSOLE),
            entry("POST /admin/console/merchants/{kind}/{id}/disable", CONSOLE),
            entry("POST /admin/console/merchants/{kind}/{id}/accounts/{provider}", CONSOLE),
            entry("POST /admin/console/merchants/{kind}/{id}/accounts/{provider}/remove", CONSOLE),
            entry("POST /admin/console/merchants/{kind}/{id}/accounts/{provider}/keys", CONSOLE),
            entry("POST /admin/console/merchants/{kind}/{id}/accounts/{provider}/keys/retire", CONSOLE),
            entry("POST /admin/console/merchants/rewrap", CONSOLE),
            entry("GET /admin/console/quarantine", CONSOLE),
            entry("POST /admin/console/quarantine/{id}/replay", CONSOLE),
            entry("GET /admin/console/statements", CONSOLE),
            entry("POST /admin/console/statements/discrepancies/{id}/resolve", CONSOLE),
            entry("POST /admin/console/statements/runs", CONSOLE),
            entry("GET /admin/console/api-keys", CONSOLE),
            entry("POST /admin/console/api-keys/create", CONSOLE),
            entry("POST /admin/console/api-keys/{id}/revoke", CONSOLE));

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern PARAMETER = Pattern.compile("\\{(\\w+)(?:\\s*:\\s*([^}]*))?}");
    private static final Pattern CSRF = Pattern.compile("\"X-Console-Csrf\": \"([^\"]+)\"");
    private static final String NONE = "matrix-none";
    private static final String NO_ID = "987654321";

    /** One operation: its verb, its documented path, and a path to call (parameters filled in). */
    record Operation(String verb, String template, String path) {
        String name() {
            return verb + " " + template;
        }
    }

    @Test
    void everyOperationAnswersEachCallerAsItsClassSays() throws Exception {
        List<Operation> operations = new ArrayList<>(documented());
        operations.addAll(consoleRoutes());
        TreeSet<String> unclassified = new TreeSet<>();
        operations.stream().map(Operation::name).filter(name -> !MATRIX.containsKey(name)).forEach(unclassified::add);
        assertThat(unclassified).as("operations not classified in the matrix").isEmpty();
        TreeSet<String> gone = new TreeSet<>(MATRIX.keySet());
        operations.forEach(operation -> gone.remove(operation.name()));
        assertThat(gone).as("classified operations that no longer exist").isEmpty();

        String own = ApiKeysFixture.merchant("mxa");
        String other = ApiKeysFixture.merchant("mxb");
        Map<Caller, String> keys = Map.of(Caller.OWN_KEY, ApiKeysFixture.key("matrix own", own),
                Caller.OTHER_MERCHANTS_KEY, ApiKeysFixture.key("matrix other", other));
        String cookie = given().redirects().follow(false).formParam("token", Api.ALICE_TOKEN).post("/admin/console/login")
                .then().statusCode(303).extract().cookie(ConsoleSessions.COOKIE);
        Matcher csrf = CSRF.matcher(given().cookie(ConsoleSessions.COOKIE, cookie).get("/admin/console").asString());
        assertThat(csrf.find()).isTrue();

        List<String> wrong = new ArrayList<>();
        for (Operation operation : operations) {
            Access access = MATRIX.get(operation.name());
            for (Caller caller : Caller.values()) {
                boolean console = operation.template().startsWith(ConsoleSessions.PATH);
                RequestSpecification request = given().redirects().follow(false);
                if (caller == Caller.OPERATOR && console) {
                    request.cookie(ConsoleSessions.COOKIE, cookie).header(ConsoleGuard.CSRF_HEADER, csrf.group(1));
                } else if (caller == Caller.OPERATOR) {
                    request.header("Authorization", "Bearer " + Api.ALICE_TOKEN);
                } else if (keys.containsKey(caller)) {
                    request.header("Authorization", "Bearer " + keys.get(caller));
                }
                String path = operation.path();
                if (access == ORDERS) {
                    String outTradeNo = Ids.unique("MX");
                    Api.createOrder(own, outTradeNo, "1.00", "CNY").then().statusCode(201);
                    path = path.replace(NONE, outTradeNo);
                    if (operation.verb().equals("POST") && !path.endsWith("/close")) {
                        request.contentType("application/json").body("{\"merchantId\":\"" + own + "\",\"outTradeNo\":\""
                                + Ids.unique("MX") + "\",\"amount\":\"1.00\",\"currency\":\"CNY\"}");
                    } else {
                        request.queryParam("merchantId", own);
                    }
                } else if (!console && !operation.verb().equals("GET")) {
                    request.contentType("application/json").body("{}");
                }
                Response response = request.request(operation.verb(), path);
                Outcome expected = access.of(caller);
                if (!expected.accepts.test(response.statusCode())
                        || expected == Outcome.TO_LOGIN && !String.valueOf(response.header("Location")).endsWith("/admin/console/login")) {
                    wrong.add(operation.name() + " as " + caller + ": " + response.statusCode() + ", expected " + expected);
                }
            }
        }
        assertThat(wrong).isEmpty();
    }

    /** The OpenAPI document's operations (the service's own APIs: callbacks are filtered out of it). */
    static List<Operation> documented() throws Exception {
        JsonNode root = JSON.readTree(given().port(ManagementPort.get()).accept("application/json")
                .get("/q/openapi?format=json").then().statusCode(200).extract().asString());
        List<Operation> operations = new ArrayList<>();
        Iterator<Map.Entry<String, JsonNode>> paths = root.path("paths").fields();
        while (paths.hasNext()) {
            Map.Entry<String, JsonNode> path = paths.next();
            Iterator<Map.Entry<String, JsonNode>> verbs = path.getValue().fields();
            while (verbs.hasNext()) {
                Map.Entry<String, JsonNode> verb = verbs.next();
                Map<String, String> samples = new LinkedHashMap<>();
                for (JsonNode parameter : verb.getValue().path("parameters")) {
                    if ("path".equals(parameter.path("in").asText())) {
                        JsonNode schema = parameter.path("schema");
                        samples.put(parameter.path("name").asText(), sample(schema.path("pattern").asText(null),
                                schema.path("type").asText().equals("integer")));
                    }
                }
                String filled = path.getKey();
                for (Map.Entry<String, String> sample : samples.entrySet()) {
                    filled = filled.replace("{" + sample.getKey() + "}", sample.getValue());
                }
                operations.add(new Operation(verb.getKey().toUpperCase(java.util.Locale.ROOT), path.getKey(), filled));
            }
        }
        return operations;
    }

    /** The console's routes, read from its resource classes. */
    static List<Operation> consoleRoutes() {
        List<Operation> operations = new ArrayList<>();
        for (JavaClass type : new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("io.paycallback.console")) {
            Class<?> resource = type.reflect();
            Path base = resource.getAnnotation(Path.class);
            if (base == null) {
                continue;
            }
            for (Method method : resource.getDeclaredMethods()) {
                String verb = verb(method);
                if (verb == null) {
                    continue;
                }
                Path sub = method.getAnnotation(Path.class);
                String raw = sub == null ? base.value() : base.value() + "/" + sub.value();
                Map<String, Class<?>> types = new LinkedHashMap<>();
                for (java.lang.reflect.Parameter parameter : method.getParameters()) {
                    jakarta.ws.rs.PathParam name = parameter.getAnnotation(jakarta.ws.rs.PathParam.class);
                    if (name != null) {
                        types.put(name.value(), parameter.getType());
                    }
                }
                StringBuilder template = new StringBuilder();
                StringBuilder path = new StringBuilder();
                Matcher matcher = PARAMETER.matcher(raw);
                int at = 0;
                while (matcher.find()) {
                    template.append(raw, at, matcher.start()).append('{').append(matcher.group(1)).append('}');
                    Class<?> javaType = types.get(matcher.group(1));
                    path.append(raw, at, matcher.start()).append(sample(matcher.group(2),
                            javaType == long.class || javaType == Long.class));
                    at = matcher.end();
                }
                template.append(raw.substring(at));
                path.append(raw.substring(at));
                operations.add(new Operation(verb, template.toString(), path.toString()));
            }
        }
        return operations;
    }

    private static String verb(Method method) {
        for (Class<? extends Annotation> verb : List.of(GET.class, POST.class, PUT.class, DELETE.class)) {
            if (method.isAnnotationPresent(verb)) {
                return verb.getSimpleName();
            }
        }
        return null;
    }

    /** A value the route takes that names nothing: the first of a pattern's alternatives, else a number or a name. */
    private static String sample(String pattern, boolean number) {
        if (pattern != null && pattern.matches("[\\w-]+(\\|[\\w-]+)*")) {
            return pattern.split("\\|")[0].strip();
        }
        return number ? NO_ID : NONE;
    }

    /** Merchants and keys made the way an operator makes them. */
    static final class ApiKeysFixture {

        static String merchant(String prefix) {
            String id = Ids.unique(prefix).toLowerCase(java.util.Locale.ROOT).substring(0, 20);
            Api.as(Api.ALICE_TOKEN).contentType("application/json").body(Map.of("id", id))
                    .post("/admin/registry/merchants").then().statusCode(201);
            return id;
        }

        static String key(String name, String merchant) {
            return Api.as(Api.ALICE_TOKEN).contentType("application/json")
                    .body(Map.of("name", name, "merchants", List.of(merchant))).post("/admin/api-keys")
                    .then().statusCode(201).extract().path("token");
        }
    }
}
