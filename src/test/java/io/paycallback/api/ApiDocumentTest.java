package io.paycallback.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.paycallback.testsupport.ManagementPort;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The OpenAPI document on the management interface lists every operation of the order and admin resources (taken
 * from the resource classes themselves, so a new endpoint cannot be forgotten) with a JSON schema for its success
 * answer, and nothing outside the service's own APIs. The document is left in target/openapi.json.
 */
@QuarkusTest
class ApiDocumentTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void everyOrderAndAdminOperationIsDocumentedWithItsAnswerSchema() throws Exception {
        String document = given().port(ManagementPort.get()).accept("application/json").get("/q/openapi?format=json")
                .then().statusCode(200).extract().asString();
        Files.writeString(java.nio.file.Path.of("target/openapi.json"), document);
        JsonNode root = JSON.readTree(document);
        JsonNode paths = root.path("paths");

        List<String> operations = new ArrayList<>();
        for (Class<?> resource : List.of(OrderResource.class, AdminResource.class, StatementResource.class)) {
            String base = resource.getAnnotation(Path.class).value();
            for (Method method : resource.getDeclaredMethods()) {
                String verb = method.isAnnotationPresent(GET.class) ? "get" : method.isAnnotationPresent(POST.class) ? "post" : null;
                if (verb == null) {
                    continue;
                }
                Path sub = method.getAnnotation(Path.class);
                // A path parameter's pattern ({table: a|b}) is not part of the documented path.
                String path = (sub == null ? base : base + "/" + sub.value()).replaceAll("\\{(\\w+):[^}]*}", "{$1}");
                operations.add(verb.toUpperCase(Locale.ROOT) + " " + path);
                JsonNode operation = paths.path(path).path(verb);
                assertThat(operation.isObject()).as("%s %s is in the document", verb, path).isTrue();
                JsonNode success = successResponse(operation.path("responses"));
                assertThat(success).as("%s %s documents a 2xx answer", verb, path).isNotNull();
                JsonNode schema = success.path("content").path("application/json").path("schema");
                assertThat(schema.isObject() && !schema.isEmpty()).as("%s %s has a response schema", verb, path).isTrue();
                assertResolves(root, schema, verb + " " + path);
                assertThat(operation.path("security").isArray()).as("%s %s names its bearer scheme", verb, path).isTrue();
            }
        }
        assertThat(operations).contains("GET /admin/audit", "POST /admin/requeue", "POST /internal/orders",
                "GET /internal/orders/{outTradeNo}", "GET /admin/statements/runs", "POST /admin/statements/runs",
                "GET /admin/statements/discrepancies", "POST /admin/statements/discrepancies/{id}/resolve");

        Iterator<String> documented = paths.fieldNames();
        while (documented.hasNext()) {
            assertThat(documented.next()).matches("/(internal|admin)(/.*)?");
        }
        assertThat(root.path("components").path("securitySchemes").path("bearer").path("scheme").asText()).isEqualTo("bearer");
    }

    /** Swagger UI is built in for dev (and test) mode only, beside the document on the management interface. */
    @Test
    void swaggerUiIsServedBesideTheDocument() {
        given().port(ManagementPort.get()).get("/q/swagger-ui/").then().statusCode(200);
        given().get("/q/openapi").then().statusCode(404);
    }

    private static JsonNode successResponse(JsonNode responses) {
        Iterator<String> codes = responses.fieldNames();
        while (codes.hasNext()) {
            String code = codes.next();
            if (code.startsWith("2")) {
                return responses.get(code);
            }
        }
        return null;
    }

    /** A schema is inline or a $ref (possibly of its items) to a component that exists and has properties. */
    private static void assertResolves(JsonNode root, JsonNode schema, String operation) {
        JsonNode target = schema.has("items") ? schema.get("items") : schema;
        if (target.has("$ref")) {
            String name = target.get("$ref").asText().replace("#/components/schemas/", "");
            JsonNode component = root.path("components").path("schemas").path(name);
            assertThat(component.isObject()).as("%s: schema %s exists", operation, name).isTrue();
            assertThat(component.has("properties") || component.has("oneOf"))
                    .as("%s: schema %s describes its fields", operation, name).isTrue();
        } else {
            assertThat(target.has("properties") || target.has("oneOf") || target.has("type"))
                    .as("%s: inline schema describes its fields", operation).isTrue();
        }
    }
}
