package io.paycallback.console;

import io.paycallback.auth.MerchantScope;
import io.paycallback.auth.ProviderIdentities;
import io.paycallback.auth.Roles;
import io.paycallback.auth.WithinMerchantScope;
import io.quarkus.oidc.AuthorizationCodeFlow;
import io.quarkus.security.Authenticated;
import io.quarkus.security.identity.SecurityIdentity;
import io.vertx.core.http.HttpServerRequest;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.jboss.logging.Logger;

import java.net.URI;
import java.util.Optional;

/**
 * The console's sign-in through the identity provider: quarkus-oidc's authorization-code flow (selected here by
 * {@link AuthorizationCodeFlow}; its cookies are confined to {@value #PATH} by application.properties) brings the
 * person back here, and the role and merchants their ID token maps to ({@link ProviderIdentities}) become a console
 * session like a token's ({@link ConsoleSessions#openForProvider}). From then on the console sees only its own cookie.
 * <p>
 * The answer is a page that moves on to the console by itself rather than a redirect: the session cookie is
 * SameSite=Strict, and a browser does not send it on a redirect chain that began at the provider's site.
 */
@Path(ProviderSignIn.PATH)
@Produces(MediaType.TEXT_HTML)
@AuthorizationCodeFlow
@Authenticated
@ConsoleGuard.Guarded
@WithinMerchantScope.Honoured
public class ProviderSignIn {

    static final String PATH = ConsoleSessions.PATH + "/oidc";
    /** quarkus-oidc's logout path (quarkus.oidc.logout.path): it answers before this resource is reached. */
    static final String LOGOUT = PATH + "/logout";

    private static final Logger LOG = Logger.getLogger(ProviderSignIn.class);

    private final ConsoleSessions sessions;
    private final SecurityIdentity identity;
    private final ProviderIdentities provider;

    public ProviderSignIn(ConsoleSessions sessions, SecurityIdentity identity, ProviderIdentities provider) {
        this.sessions = sessions;
        this.identity = identity;
        this.provider = provider;
    }

    @GET
    public Response signIn(@Context HttpServerRequest request) {
        String name = identity.getPrincipal().getName();
        Optional<String> role = identity.hasRole(Roles.OPERATOR) ? Optional.of(Roles.OPERATOR)
                : identity.hasRole(Roles.VIEWER) ? Optional.of(Roles.VIEWER) : Optional.empty();
        if (role.isEmpty() || identity.getAttribute(ProviderIdentities.PROVIDER) == null) {
            LOG.infof("console sign-in of %s through the identity provider refused: no operator or viewer role", name);
            return Response.status(Response.Status.FORBIDDEN).entity(Templates.login(
                    name + " has no operator or viewer role at " + provider.providerName() + ".", null)).build();
        }
        Optional<ConsoleSessions.Opened> opened = sessions.openForProvider(name, role.get(), MerchantScope.of(identity));
        if (opened.isEmpty()) {
            LOG.error("console sign-in through the identity provider needs quarkus.oidc.credentials.secret");
            return Response.serverError().entity(Templates.login("The console has no client secret to sign sessions with.",
                    null)).build();
        }
        LOG.infof("console login by %s (%s) through the identity provider from %s", name, role.get(),
                request.remoteAddress());
        // Every other page spans all merchants, which a scoped person may not see (auth/WithinMerchantScope).
        String next = MerchantScope.of(identity).merchants().isEmpty() ? ConsoleSessions.PATH : ConsoleSessions.PATH + "/search";
        return Response.ok(Templates.signedIn(name, next)).cookie(ConsoleLogin.cookie(opened.get().cookie(),
                (int) sessions.ttl().toSeconds(), request.isSSL())).build();
    }

    /** Reached only without a provider session to end (quarkus-oidc answers the logout path when there is one). */
    @GET
    @Path("logout")
    public Response signedOut() {
        return Response.seeOther(URI.create(ConsoleSessionMechanism.LOGIN)).build();
    }
}
