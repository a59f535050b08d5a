package io.paycallback.api;

import org.eclipse.microprofile.openapi.OASFilter;
import org.eclipse.microprofile.openapi.models.OpenAPI;

/**
 * Keeps the OpenAPI document to the service's own APIs ({@code /internal/**}, {@code /admin/**}): the provider
 * callbacks' bodies are the providers' formats, documented by the providers. Registered as {@code mp.openapi.filter}.
 */
public class ApiDocument implements OASFilter {

    /** The security scheme every documented operation requires. */
    public static final String BEARER = "bearer";
    private static final String CONSOLE = "/admin/console";

    @Override
    public void filterOpenAPI(OpenAPI openAPI) {
        if (openAPI.getPaths() == null || openAPI.getPaths().getPathItems() == null) {
            return;
        }
        openAPI.getPaths().getPathItems().keySet().stream()
                .filter(path -> !isOwnApi(path))
                .toList()
                .forEach(openAPI.getPaths()::removePathItem);
    }

    /** The console's pages under {@code /admin/console} are HTML for a browser, not an API: they are left out. */
    static boolean isOwnApi(String path) {
        if (path.equals(CONSOLE) || path.startsWith(CONSOLE + "/")) {
            return false;
        }
        return path.equals("/internal") || path.startsWith("/internal/") || path.equals("/admin") || path.startsWith("/admin/");
    }
}
