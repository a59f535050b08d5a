package io.paycallback.auth;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

import java.util.Map;

/**
 * Operators signed in through an OpenID Connect identity provider ({@code paycallback.auth.oidc.*},
 * docs/configuration.md#identity-provider). The provider itself (issuer, client, secret) is quarkus-oidc's
 * {@code quarkus.oidc.*}; {@code quarkus.oidc.tenant-enabled} follows {@link #enabled()}.
 */
@ConfigMapping(prefix = "paycallback.auth.oidc")
public interface IdentityProviderConfig {

    /** Off by default: dev mode, the tests and a deployment without an identity provider know only tokens. */
    @WithDefault("false")
    boolean enabled();

    /** Shown on the console's sign-in button: "Sign in with ...". */
    @WithDefault("the identity provider")
    String providerName();

    /** The claim whose values are mapped to roles; a path such as {@code realm_access/roles} reaches a nested one. */
    @WithDefault("groups")
    String rolesClaim();

    /**
     * The claim naming the merchants an operator reaches; absent or empty, every merchant. A scoped operator sees a
     * merchant's orders and callbacks only within the scope (another's answer 404) and no view spanning every merchant.
     */
    @WithDefault("merchants")
    String merchantsClaim();

    /** The claim that names a person in the audit log and the access log. */
    @WithDefault("preferred_username")
    String nameClaim();

    /**
     * A value of the roles claim to {@code operator} or {@code viewer}, e.g.
     * {@code paycallback.auth.oidc.role-mapping.paycallback-operators=operator}. The values {@code operator} and
     * {@code viewer} themselves map to their roles; every other value grants nothing, so no group of the identity
     * provider can make anyone the order service.
     */
    Map<String, String> roleMapping();
}
