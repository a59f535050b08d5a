package io.paycallback.apikey;

import io.paycallback.auth.ApiKeyToken;
import io.paycallback.auth.MerchantScope;
import io.paycallback.auth.Roles;
import io.quarkus.security.identity.AuthenticationRequestContext;
import io.quarkus.security.identity.IdentityProvider;
import io.quarkus.security.identity.SecurityIdentity;
import io.quarkus.security.identity.request.TokenAuthenticationRequest;
import io.quarkus.security.runtime.QuarkusPrincipal;
import io.quarkus.security.runtime.QuarkusSecurityIdentity;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * An API key made as data ({@code pck_...}) becomes the order service, scoped to the key's merchants; its principal
 * is the key's prefix, which the audit log and the access log show. A token that is not a live key is passed on to
 * the tokens from properties ({@code auth/TokenIdentityProvider}, which passes on what it does not know in turn), so a
 * token from properties that happens to start with {@code pck_} still works, and one that neither knows is 401.
 */
@ApplicationScoped
public class ApiKeyIdentityProvider implements IdentityProvider<TokenAuthenticationRequest> {

    private final ApiKeys keys;

    public ApiKeyIdentityProvider(ApiKeys keys) {
        this.keys = keys;
    }

    @Override
    public Class<TokenAuthenticationRequest> getRequestType() {
        return TokenAuthenticationRequest.class;
    }

    @Override
    public Uni<SecurityIdentity> authenticate(TokenAuthenticationRequest request, AuthenticationRequestContext context) {
        String token = request.getToken().getToken();
        if (!token.startsWith(ApiKeyToken.PREFIX)) {
            return Uni.createFrom().nullItem();
        }
        return keys.identify(token)
                .map(caller -> Uni.createFrom().<SecurityIdentity>item(QuarkusSecurityIdentity.builder()
                        .setPrincipal(new QuarkusPrincipal(caller.prefix()))
                        .addRole(Roles.ORDER_SERVICE)
                        .addAttribute(MerchantScope.ATTRIBUTE, new MerchantScope(caller.merchants()))
                        .build()))
                .orElseGet(() -> Uni.createFrom().nullItem());
    }
}
