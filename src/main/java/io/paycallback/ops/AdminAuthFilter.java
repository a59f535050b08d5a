package io.paycallback.ops;

import io.paycallback.config.PayCallbackConfig;
import io.vertx.core.http.HttpServerRequest;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.jboss.logging.Logger;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Optional;

/**
 * Bearer-token gate for the internal (order service) and admin APIs. The ingress never routes these paths; the token
 * is the second wall. Compared in constant time; with no token configured every call is refused.
 */
public class AdminAuthFilter {

    private static final Logger LOG = Logger.getLogger(AdminAuthFilter.class);
    private static final String BEARER = "Bearer ";

    private final Optional<byte[]> token;

    public AdminAuthFilter(PayCallbackConfig config) {
        this.token = config.admin().token().filter(t -> !t.isBlank()).map(t -> t.getBytes(StandardCharsets.UTF_8));
    }

    @ServerRequestFilter(preMatching = true)
    public Optional<Response> authenticate(ContainerRequestContext request, HttpServerRequest connection) {
        String path = request.getUriInfo().getPath();
        if (!path.startsWith("/internal/") && !path.startsWith("/admin/")
                && !path.equals("/internal") && !path.equals("/admin")) {
            return Optional.empty();
        }
        String header = request.getHeaderString(HttpHeaders.AUTHORIZATION);
        if (token.isPresent() && header != null && header.startsWith(BEARER)
                && MessageDigest.isEqual(token.get(), header.substring(BEARER.length()).getBytes(StandardCharsets.UTF_8))) {
            if (path.startsWith("/admin")) {
                LOG.infof("admin %s %s from %s", request.getMethod(), path, connection.remoteAddress());
            }
            return Optional.empty();
        }
        return Optional.of(Response.status(Response.Status.UNAUTHORIZED)
                .header(HttpHeaders.WWW_AUTHENTICATE, "Bearer")
                .type(MediaType.TEXT_PLAIN_TYPE).entity("missing or wrong bearer token").build());
    }
}
