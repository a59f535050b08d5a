package io.paycallback.api;

import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.OASFactory;
import org.eclipse.microprofile.openapi.OASFilter;
import org.eclipse.microprofile.openapi.models.OpenAPI;
import org.eclipse.microprofile.openapi.models.Operation;

import java.util.Set;

/**
 * Keeps the OpenAPI document to the service's own APIs ({@code /internal/**}, {@code /admin/**}): the provider
 * callbacks' bodies are the providers' formats, documented by the providers. Registered as {@code mp.openapi.filter}.
 */
public class ApiDocument implements OASFilter {

    /** The security scheme every documented operation requires. */
    public static final String BEARER = "bearer";
    private static final String CONSOLE = "/admin/console";
    private static final String ERROR_BODY = "#/components/schemas/" + ErrorBody.SCHEMA;
    /** Answered by the security layer before any resource runs: they carry no {@link ErrorBody}. */
    private static final Set<String> SECURITY_ANSWERS = Set.of("401", "403");

    @Override
    public void filterOpenAPI(OpenAPI openAPI) {
        if (openAPI.getPaths() == null || openAPI.getPaths().getPathItems() == null) {
            return;
        }
        openAPI.getPaths().getPathItems().keySet().stream()
                .filter(path -> !isOwnApi(path))
                .toList()
                .forEach(openAPI.getPaths()::removePathItem);
        openAPI.getPaths().getPathItems().values()
                .forEach(item -> item.getOperations().values().forEach(ApiDocument::describeErrors));
    }

    /** The console's pages under {@code /admin/console} are HTML for a browser, not an API: they are left out. */
    static boolean isOwnApi(String path) {
        if (path.equals(CONSOLE) || path.startsWith(CONSOLE + "/")) {
            return false;
        }
        return path.equals("/internal") || path.startsWith("/internal/") || path.equals("/admin") || path.startsWith("/admin/");
    }

    /**
     * Every error a resource answers is an {@link ErrorBody}: said once here rather than on each {@code @APIResponse},
     * which then needs only its code and what it means.
     */
    private static void describeErrors(Operation operation) {
        if (operation.getResponses() == null || operation.getResponses().getAPIResponses() == null) {
            return;
        }
        operation.getResponses().getAPIResponses().forEach((code, response) -> {
            if (response.getContent() == null && !SECURITY_ANSWERS.contains(code) && (code.startsWith("4") || code.startsWith("5"))) {
                response.setContent(OASFactory.createContent().addMediaType(MediaType.APPLICATION_JSON,
                        OASFactory.createMediaType().schema(OASFactory.createSchema().ref(ERROR_BODY))));
            }
        });
    }
}
