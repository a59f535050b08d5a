package io.paycallback.console;

import io.paycallback.auth.Roles;
import io.quarkus.security.AuthenticationFailedException;
import io.quarkus.security.identity.AuthenticationRequestContext;
import io.quarkus.security.identity.IdentityProvider;
import io.quarkus.security.identity.SecurityIdentity;
import io.quarkus.security.runtime.QuarkusPrincipal;
import io.quarkus.security.runtime.QuarkusSecurityIdentity;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * A valid console session is its operator, by token name (the same principal as with the bearer token, so the audit
 * log names the same person either way), with the operator role and the session itself as an attribute.
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
                        .addRole(Roles.OPERATOR)
                        .addAttribute(SESSION, session)
                        .build()))
                .orElseGet(() -> Uni.createFrom().failure(new AuthenticationFailedException("no valid console session")));
    }
}
