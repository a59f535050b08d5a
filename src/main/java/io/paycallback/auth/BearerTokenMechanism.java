package io.paycallback.auth;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.quarkus.oidc.AccessTokenCredential;
import io.quarkus.security.AuthenticationFailedException;
import io.quarkus.security.credential.TokenCredential;
import io.quarkus.security.identity.IdentityProviderManager;
import io.quarkus.security.identity.SecurityIdentity;
import io.quarkus.security.identity.request.AuthenticationRequest;
import io.quarkus.security.identity.request.TokenAuthenticationRequest;
import io.quarkus.vertx.http.runtime.security.ChallengeData;
import io.quarkus.vertx.http.runtime.security.HttpAuthenticationMechanism;
import io.quarkus.vertx.http.runtime.security.HttpCredentialTransport;
import io.quarkus.vertx.http.runtime.security.HttpSecurityUtils;
import io.smallrye.mutiny.Uni;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * {@code Authorization: Bearer <token>} for the internal and admin APIs. Without the header the caller is anonymous
 * and a secured endpoint answers 401; a token is checked by the identity providers (an API key's by
 * {@code apikey/ApiKeyIdentityProvider}, one from properties by {@link TokenIdentityProvider}, and, with an identity
 * provider configured, a JWT by quarkus-oidc's, against the provider's cached keys: {@link ProviderIdentities}).
 * <p>
 * This is the one mechanism that reads bearer headers, also for the identity provider's tokens. quarkus-oidc's own
 * mechanism would read the same header and try every static token and API key as a JWT (and, failing that, at the
 * provider's introspection endpoint), and its failure would end the request's authentication before ours ran; here a
 * token's shape decides who checks it, every kind shares one throttle and one challenge, and quarkus-oidc's mechanism
 * (priority below every other, application.properties) is left the console's authorization-code flow alone. A failure is counted against the
 * caller's address and the API key's prefix ({@link LoginThrottle}); while either is held back, the request is answered
 * 429 with {@code Retry-After} and its token is not looked at. Authentication is not proactive (application.properties),
 * so provider callbacks never pay for any of this.
 */
@ApplicationScoped
public class BearerTokenMechanism implements HttpAuthenticationMechanism {

    private static final String BEARER = "Bearer ";
    private static final String RETRY_AFTER = "paycallback.retry-after";
    private static final ChallengeData CHALLENGE =
            new ChallengeData(HttpResponseStatus.UNAUTHORIZED.code(), HttpHeaderNames.WWW_AUTHENTICATE, "Bearer");

    private final LoginThrottle throttle;
    private final ProviderIdentities provider;

    public BearerTokenMechanism(LoginThrottle throttle, ProviderIdentities provider) {
        this.throttle = throttle;
        this.provider = provider;
    }

    @Override
    public Uni<SecurityIdentity> authenticate(RoutingContext context, IdentityProviderManager identityProviderManager) {
        String header = context.request().getHeader(HttpHeaderNames.AUTHORIZATION);
        if (header == null || !header.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
            return Uni.createFrom().nullItem();
        }
        String token = header.substring(BEARER.length()).strip();
        Optional<String> keyPrefix = ApiKeyToken.parse(token).map(key -> ApiKeyToken.prefix(key.id()));
        LoginThrottle.Kind kind = keyPrefix.isPresent() ? LoginThrottle.Kind.API_KEY : LoginThrottle.Kind.BEARER;
        List<String> keys = LoginThrottle.keys(address(context), keyPrefix);
        Optional<Duration> wait = throttle.refused(kind, keys);
        if (wait.isPresent()) {
            context.put(RETRY_AFTER, LoginThrottle.seconds(wait.get()));
            return Uni.createFrom().failure(new AuthenticationFailedException("too many failed attempts"));
        }
        TokenAuthenticationRequest request = new TokenAuthenticationRequest(provider.isProviderToken(token)
                ? new AccessTokenCredential(token) : new TokenCredential(token, "bearer"));
        HttpSecurityUtils.setRoutingContextAttribute(request, context);
        return identityProviderManager.authenticate(request)
                .onFailure(AuthenticationFailedException.class).invoke(failure -> throttle.failed(kind, keys))
                .onItem().invoke(identity -> throttle.succeeded(keyPrefix));
    }

    @Override
    public Uni<ChallengeData> getChallenge(RoutingContext context) {
        Long retryAfter = context.get(RETRY_AFTER);
        if (retryAfter != null) {
            return Uni.createFrom().item(new ChallengeData(HttpResponseStatus.TOO_MANY_REQUESTS.code(),
                    HttpHeaderNames.RETRY_AFTER, retryAfter.toString()));
        }
        return Uni.createFrom().item(CHALLENGE);
    }

    static String address(RoutingContext context) {
        return context.request().remoteAddress() == null ? "unknown" : context.request().remoteAddress().host();
    }

    @Override
    public Set<Class<? extends AuthenticationRequest>> getCredentialTypes() {
        return Set.of(TokenAuthenticationRequest.class);
    }

    @Override
    public Uni<HttpCredentialTransport> getCredentialTransport(RoutingContext context) {
        return Uni.createFrom().item(new HttpCredentialTransport(HttpCredentialTransport.Type.AUTHORIZATION, "bearer"));
    }
}
