package io.paycallback.auth;

import io.quarkus.security.identity.AuthenticationRequestContext;
import io.quarkus.security.identity.IdentityProvider;
import io.quarkus.security.identity.SecurityIdentity;
import io.quarkus.security.identity.request.TokenAuthenticationRequest;
import io.quarkus.security.runtime.QuarkusPrincipal;
import io.quarkus.security.runtime.QuarkusSecurityIdentity;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * Turns a bearer token into the caller it was configured for: the token's name as principal, its role. The identity
 * carries no credential, so nothing downstream can log or leak the token. A token that is none of these is passed on
 * to the other providers (an API key made as data); one that none of them knows fails authentication (401).
 */
@ApplicationScoped
public class TokenIdentityProvider implements IdentityProvider<TokenAuthenticationRequest> {

    private final CallerTokens tokens;

    public TokenIdentityProvider(CallerTokens tokens) {
        this.tokens = tokens;
    }

    @Override
    public Class<TokenAuthenticationRequest> getRequestType() {
        return TokenAuthenticationRequest.class;
    }

    @Override
    public Uni<SecurityIdentity> authenticate(TokenAuthenticationRequest request, AuthenticationRequestContext context) {
        return tokens.identify(request.getToken().getToken())
                .map(caller -> Uni.createFrom().<SecurityIdentity>item(QuarkusSecurityIdentity.builder()
                        .setPrincipal(new QuarkusPrincipal(caller.name()))
                        .addRoles(caller.roles())
                        .build()))
                .orElseGet(() -> Uni.createFrom().nullItem());
    }
}
