package io.paycallback.console;

import io.paycallback.auth.MerchantScope;
import io.quarkus.security.AuthenticationFailedException;
import io.quarkus.security.identity.AuthenticationRequestContext;
import io.quarkus.security.identity.IdentityProvider;
import io.quarkus.security.identity.SecurityIdentity;
import io.quarkus.security.runtime.QuarkusPrincipal;
import io.quarkus.security.runtime.QuarkusSecurityIdentity;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * A valid console session is its operator, by token name or the identity provider's user name (the same principal as
 * with a bearer token, so the audit log names the same person either way), with the session's role, its merchant
 * scope, and the session itself as an attribute.
 */
@ApplicationScoped
public class ConsoleSessionIdentityProvider implements IdentityProvider<ConsoleSessionRequest> {

    static final String SESSION = "paycallback.console.session";

    private final ConsoleSessions sessions;

    public ConsoleSessionIdentityProvider(ConsoleSessions sessions) {
        this.sessions = sessions;
    }

    @Override
    public Class<ConsoleSessionRequest> getRequestType() {
        return ConsoleSessionRequest.class;
    }

    @Override
    public Uni<SecurityIdentity> authenticate(ConsoleSessionRequest request, AuthenticationRequestContext context) {
        return sessions.check(request.cookie())
                .map(session -> Uni.createFrom().<SecurityIdentity>item(QuarkusSecurityIdentity.builder()
                        .setPrincipal(new QuarkusPrincipal(session.operator()))
                        .addRole(session.role())
                        .addAttribute(MerchantScope.ATTRIBUTE, session.scope())
                        .addAttribute(SESSION, session)
                        .build()))
                .orElseGet(() -> Uni.createFrom().failure(new AuthenticationFailedException("no valid console session")));
    }
}
