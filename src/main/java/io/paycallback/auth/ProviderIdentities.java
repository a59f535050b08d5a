package io.paycallback.auth;

import io.quarkus.security.identity.AuthenticationRequestContext;
import io.quarkus.security.identity.SecurityIdentity;
import io.quarkus.security.identity.SecurityIdentityAugmentor;
import io.quarkus.security.runtime.QuarkusPrincipal;
import io.quarkus.security.runtime.QuarkusSecurityIdentity;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.json.JsonString;
import org.eclipse.microprofile.jwt.JsonWebToken;

import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A person signed in through the identity provider (quarkus-oidc's identity: a verified JWT as principal, from a
 * bearer access token or the console's ID token) becomes an operator or viewer of this service: named by
 * {@link IdentityProviderConfig#nameClaim()}, with the roles {@link IdentityProviderConfig#roleMapping()} gives the
 * values of the roles claim (and no others: whatever roles quarkus-oidc read are dropped) and the merchant scope of
 * the merchants claim. Identities from tokens configured in properties and from API keys pass unchanged.
 */
@ApplicationScoped
public class ProviderIdentities implements SecurityIdentityAugmentor {

    /** The attribute that marks an identity as the identity provider's. */
    public static final String PROVIDER = "paycallback.identity-provider";
    private static final Set<String> GRANTABLE = Set.of(Roles.OPERATOR, Roles.VIEWER);
    /** Three base64url segments: a JWS compact serialisation. Static tokens and API keys never have this shape. */
    private static final Pattern JWT = Pattern.compile("eyJ[A-Za-z0-9_-]*\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+");

    private final IdentityProviderConfig config;

    public ProviderIdentities(IdentityProviderConfig config) {
        this.config = config;
    }

    public boolean enabled() {
        return config.enabled();
    }

    public String providerName() {
        return config.providerName();
    }

    /** Whether a presented bearer token is for the identity provider to verify. */
    public boolean isProviderToken(String token) {
        return config.enabled() && JWT.matcher(token).matches();
    }

    @Override
    public Uni<SecurityIdentity> augment(SecurityIdentity identity, AuthenticationRequestContext context) {
        if (identity.isAnonymous() || !(identity.getPrincipal() instanceof JsonWebToken token)) {
            return Uni.createFrom().item(identity);
        }
        String name = Optional.ofNullable(token.<Object>getClaim(config.nameClaim())).map(Object::toString)
                .orElse(token.getSubject());
        QuarkusSecurityIdentity.Builder person = QuarkusSecurityIdentity.builder()
                .setPrincipal(new QuarkusPrincipal(name))
                .addCredentials(identity.getCredentials())
                .addAttributes(identity.getAttributes())
                .addAttribute(PROVIDER, Boolean.TRUE)
                .addRoles(roles(claimValues(token, config.rolesClaim())));
        List<String> merchants = claimValues(token, config.merchantsClaim());
        if (!merchants.isEmpty()) {
            person.addAttribute(MerchantScope.ATTRIBUTE, new MerchantScope(Set.copyOf(merchants)));
        }
        return Uni.createFrom().item(person.build());
    }

    Set<String> roles(List<String> values) {
        Map<String, String> mapping = config.roleMapping();
        Set<String> roles = new LinkedHashSet<>();
        for (String value : values) {
            String role = mapping.getOrDefault(value, value);
            if (GRANTABLE.contains(role)) {
                roles.add(role);
            }
        }
        return roles;
    }

    /** A claim's values as strings; a path with '/' walks into nested objects (Keycloak's realm_access/roles). */
    static List<String> claimValues(JsonWebToken token, String path) {
        String[] steps = path.split("/");
        Object value = token.getClaim(steps[0]);
        for (int i = 1; i < steps.length && value != null; i++) {
            value = value instanceof Map<?, ?> map ? map.get(steps[i]) : null;
        }
        if (value == null) {
            return List.of();
        }
        if (value instanceof Collection<?> values) {
            return values.stream().map(ProviderIdentities::text).toList();
        }
        return List.of(text(value));
    }

    private static String text(Object value) {
        return value instanceof JsonString string ? string.getString() : value.toString();
    }
}
