package io.paycallback.console;

import io.quarkus.security.identity.SecurityIdentity;
import jakarta.inject.Inject;
import jakarta.ws.rs.NameBinding;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;
import jakarta.ws.rs.core.MultivaluedMap;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.Provider;
import org.jboss.logging.Logger;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.net.URI;

/**
 * CSRF and browser hardening for the console. Every POST must come from the console's own origin (the browser's
 * {@code Origin} header, when sent, names the host the request went to) and, once logged in, carry the session's CSRF token in
 * {@value #CSRF_HEADER}: htmx sends it from the page's {@code hx-headers}, which another site cannot read. The session
 * cookie is SameSite=Strict as well, so a cross-site POST arrives without a session in current browsers anyway; the
 * token protects older ones and same-site attackers. Runs after the security check, so the session is known.
 * Every answer forbids framing, sniffing, caching and any script or style not served by the console itself.
 */
@Provider
@ConsoleGuard.Guarded
public class ConsoleGuard implements ContainerRequestFilter, ContainerResponseFilter {

    private static final Logger LOG = Logger.getLogger(ConsoleGuard.class);

    public static final String CSRF_HEADER = "X-Console-Csrf";
    static final String CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
            + "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

    /** Binds the guard to the console's resources. */
    @NameBinding
    @Target({ElementType.TYPE, ElementType.METHOD})
    @Retention(RetentionPolicy.RUNTIME)
    public @interface Guarded {
    }

    @Inject
    SecurityIdentity identity;

    @Override
    public void filter(ContainerRequestContext request) {
        if (!"POST".equals(request.getMethod())) {
            return;
        }
        String origin = request.getHeaderString("Origin");
        if (origin != null && !sameOrigin(origin, request.getHeaderString("Host"))) {
            LOG.warnf("console POST %s refused: origin %s is not host %s", request.getUriInfo().getPath(), origin,
                    request.getHeaderString("Host"));
            request.abortWith(Response.status(Response.Status.FORBIDDEN).entity("foreign origin").build());
            return;
        }
        if (request.getUriInfo().getPath().equals(ConsoleSessionMechanism.LOGIN)) {
            return;
        }
        ConsoleSessions.Session session = identity.getAttribute(ConsoleSessionIdentityProvider.SESSION);
        if (session == null || !ConsoleSessions.csrfMatches(session, request.getHeaderString(CSRF_HEADER))) {
            LOG.warnf("console POST %s refused: no or wrong CSRF token", request.getUriInfo().getPath());
            request.abortWith(Response.status(Response.Status.FORBIDDEN).entity("missing or wrong CSRF token").build());
        }
    }

    @Override
    public void filter(ContainerRequestContext request, ContainerResponseContext response) {
        MultivaluedMap<String, Object> headers = response.getHeaders();
        headers.putSingle("Content-Security-Policy", CSP);
        headers.putSingle("X-Content-Type-Options", "nosniff");
        headers.putSingle("X-Frame-Options", "DENY");
        // Not no-referrer: with it Chrome sends "Origin: null" on the console's own form posts.
        headers.putSingle("Referrer-Policy", "same-origin");
        headers.putSingle("Cache-Control", "no-store");
    }

    /**
     * The Origin header against the Host the browser sent the request to. Only the authority is compared: behind a
     * TLS-terminating proxy or a port-forward the scheme the service sees is not the browser's.
     */
    static boolean sameOrigin(String origin, String host) {
        if (host == null) {
            return false;
        }
        try {
            String authority = URI.create(origin).getRawAuthority();
            return authority != null && authority.equalsIgnoreCase(host);
        } catch (IllegalArgumentException e) {
            return false;
        }
    }
}
