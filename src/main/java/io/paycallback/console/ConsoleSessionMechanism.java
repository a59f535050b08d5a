package io.paycallback.console;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.quarkus.security.identity.IdentityProviderManager;
import io.quarkus.security.identity.SecurityIdentity;
import io.quarkus.security.identity.request.AuthenticationRequest;
import io.quarkus.vertx.http.runtime.security.ChallengeData;
import io.quarkus.vertx.http.runtime.security.HttpAuthenticationMechanism;
import io.quarkus.vertx.http.runtime.security.HttpCredentialTransport;
import io.quarkus.vertx.http.runtime.security.HttpSecurityUtils;
import io.smallrye.mutiny.Uni;
import io.vertx.core.http.Cookie;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.Set;

/**
 * The console's session cookie, read only under {@link ConsoleSessions#PATH}: anywhere else the cookie is ignored, so
 * the JSON API keeps its bearer tokens and nothing else. The console's resources select this mechanism by its scheme
 * ({@value #SCHEME}), so a bearer header does not open the console either. Without a valid session a page is redirected
 * to the login form; an htmx request gets 401 with {@code HX-Redirect}, which htmx follows as a page load.
 */
@ApplicationScoped
public class ConsoleSessionMechanism implements HttpAuthenticationMechanism {

    public static final String SCHEME = "console-session";
    static final String LOGIN = ConsoleSessions.PATH + "/login";

    private static final ChallengeData REDIRECT =
            new ChallengeData(HttpResponseStatus.FOUND.code(), HttpHeaderNames.LOCATION, LOGIN);
    private static final ChallengeData HTMX_REDIRECT =
            new ChallengeData(HttpResponseStatus.UNAUTHORIZED.code(), "HX-Redirect", LOGIN);

    @Override
    public Uni<SecurityIdentity> authenticate(RoutingContext context, IdentityProviderManager identityProviderManager) {
        if (!underConsole(context.normalizedPath())) {
            return Uni.createFrom().nullItem();
        }
        Cookie cookie = context.request().getCookie(ConsoleSessions.COOKIE);
        if (cookie == null || cookie.getValue().isEmpty()) {
            return Uni.createFrom().nullItem();
        }
        ConsoleSessionRequest request = new ConsoleSessionRequest(cookie.getValue());
        HttpSecurityUtils.setRoutingContextAttribute(request, context);
        return identityProviderManager.authenticate(request);
    }

    @Override
    public Uni<ChallengeData> getChallenge(RoutingContext context) {
        return Uni.createFrom().item(context.request().getHeader("HX-Request") != null ? HTMX_REDIRECT : REDIRECT);
    }

    @Override
    public Set<Class<? extends AuthenticationRequest>> getCredentialTypes() {
        return Set.of(ConsoleSessionRequest.class);
    }

    @Override
    public Uni<HttpCredentialTransport> getCredentialTransport(RoutingContext context) {
        return Uni.createFrom().item(new HttpCredentialTransport(HttpCredentialTransport.Type.COOKIE, ConsoleSessions.COOKIE, SCHEME));
    }

    /** After the bearer mechanism, so a 401 from the JSON API still challenges for a bearer token. */
    @Override
    public int getPriority() {
        return DEFAULT_PRIORITY - 100;
    }

    static boolean underConsole(String path) {
        return path != null && (path.equals(ConsoleSessions.PATH) || path.startsWith(ConsoleSessions.PATH + "/"));
    }
}
