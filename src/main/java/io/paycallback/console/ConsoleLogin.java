package io.paycallback.console;

import io.paycallback.auth.LoginThrottle;
import io.paycallback.auth.ProviderIdentities;
import io.paycallback.auth.Roles;
import io.paycallback.auth.WithinMerchantScope;
import io.quarkus.qute.TemplateInstance;
import io.quarkus.security.identity.SecurityIdentity;
import io.quarkus.vertx.http.runtime.security.annotation.HttpAuthenticationMechanism;
import io.vertx.core.http.HttpServerRequest;
import jakarta.annotation.security.PermitAll;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.FormParam;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.NewCookie;
import jakarta.ws.rs.core.Response;
import org.jboss.logging.Logger;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Signing in with an operator token, which becomes a session cookie, and signing out. With an identity provider
 * configured the form also offers its sign-in ({@link ProviderSignIn}); the token form stays for break-glass.
 */
@Path(ConsoleSessions.PATH)
@Produces(MediaType.TEXT_HTML)
@RolesAllowed({Roles.OPERATOR, Roles.VIEWER})
@HttpAuthenticationMechanism(ConsoleSessionMechanism.SCHEME)
@ConsoleGuard.Guarded
@WithinMerchantScope.Honoured
public class ConsoleLogin {

    private static final Logger LOG = Logger.getLogger(ConsoleLogin.class);

    private final ConsoleSessions sessions;
    private final SecurityIdentity identity;
    private final LoginThrottle throttle;
    private final ProviderIdentities provider;

    public ConsoleLogin(ConsoleSessions sessions, SecurityIdentity identity, LoginThrottle throttle,
                        ProviderIdentities provider) {
        this.sessions = sessions;
        this.identity = identity;
        this.throttle = throttle;
        this.provider = provider;
    }

    @GET
    @Path("login")
    @PermitAll
    public TemplateInstance loginForm() {
        return login(null);
    }

    /**
     * Exchanges an operator token for a session cookie; the token itself is never stored, echoed or logged. An address
     * that failed too often is refused with 429 before its token is looked at ({@link LoginThrottle}).
     */
    @POST
    @Path("login")
    @PermitAll
    @Consumes(MediaType.APPLICATION_FORM_URLENCODED)
    public Response login(@FormParam("token") String token, @Context HttpServerRequest request) {
        List<String> keys = LoginThrottle.keys(request.remoteAddress() == null ? "unknown" : request.remoteAddress().host(),
                Optional.empty());
        Optional<Duration> wait = throttle.refused(LoginThrottle.Kind.CONSOLE_LOGIN, keys);
        if (wait.isPresent()) {
            long seconds = LoginThrottle.seconds(wait.get());
            return Response.status(Response.Status.TOO_MANY_REQUESTS).header("Retry-After", seconds)
                    .entity(login("Too many failed sign-ins from here: try again in " + seconds + " s.")).build();
        }
        Optional<ConsoleSessions.Opened> opened = token == null ? Optional.empty() : sessions.open(token.strip());
        if (opened.isEmpty()) {
            throttle.failed(LoginThrottle.Kind.CONSOLE_LOGIN, keys);
            LOG.infof("console login refused from %s", request.remoteAddress());
            return Response.status(Response.Status.UNAUTHORIZED).entity(login("That is not an operator token.")).build();
        }
        ConsoleSessions.Session session = opened.get().session();
        LOG.infof("console login by %s from %s", session.operator(), request.remoteAddress());
        return Response.seeOther(URI.create(ConsoleSessions.PATH)).cookie(cookie(opened.get().cookie(),
                (int) sessions.ttl().toSeconds(), request.isSSL())).build();
    }

    /**
     * Ends the console session; one the identity provider signed in goes on to quarkus-oidc's logout path, which ends
     * the provider's session too (RP-initiated logout) and comes back to the login form.
     */
    @POST
    @Path("logout")
    public Response logout(@Context HttpServerRequest request) {
        LOG.infof("console logout by %s", identity.getPrincipal().getName());
        ConsoleSessions.Session session = identity.getAttribute(ConsoleSessionIdentityProvider.SESSION);
        String next = session != null && session.viaProvider() && provider.enabled() ? ProviderSignIn.LOGOUT
                : ConsoleSessionMechanism.LOGIN;
        return Response.noContent().header("HX-Redirect", next).cookie(cookie("", 0, request.isSSL())).build();
    }

    /** Private: ArC intercepts self-invocations, and the class's role check would apply to a visible method. */
    private TemplateInstance login(String error) {
        return Templates.login(error, provider.enabled() ? provider.providerName() : null);
    }

    /** HttpOnly (no script reads it), SameSite=Strict (no other site's page sends it), the console's path only. */
    static NewCookie cookie(String value, int maxAge, boolean secure) {
        return new NewCookie.Builder(ConsoleSessions.COOKIE).value(value).path(ConsoleSessions.PATH).maxAge(maxAge)
                .httpOnly(true).secure(secure).sameSite(NewCookie.SameSite.STRICT).build();
    }
}
