package io.paycallback.auth;

import io.quarkus.security.identity.SecurityIdentity;

import java.util.Optional;
import java.util.Set;

/**
 * The merchants a caller of the order service's API reaches: an API key made through the admin API or the console
 * names them; a token from properties reaches every merchant. Anything outside the scope is answered as if it did not
 * exist (404), so a key learns nothing about another merchant's orders.
 *
 * @param merchants the merchant ids reached; empty means every merchant
 */
public record MerchantScope(Set<String> merchants) {

    /** The attribute of a {@link SecurityIdentity} that holds its scope; an identity without it reaches every merchant. */
    public static final String ATTRIBUTE = "paycallback.merchant-scope";
    public static final MerchantScope ALL = new MerchantScope(Set.of());

    public MerchantScope {
        merchants = Set.copyOf(merchants);
    }

    public static MerchantScope of(SecurityIdentity identity) {
        return identity.getAttribute(ATTRIBUTE) instanceof MerchantScope scope ? scope : ALL;
    }

    public boolean reaches(String merchantId) {
        return merchants.isEmpty() || merchants.contains(merchantId);
    }

    /** The one merchant of a key scoped to exactly one: what a request naming no merchant means. */
    public Optional<String> only() {
        return merchants.size() == 1 ? Optional.of(merchants.iterator().next()) : Optional.empty();
    }

    /**
     * The merchant a request means: the one it names; else a key's only merchant; else {@code fallback} (the default
     * merchant). Empty when the scope does not reach it.
     */
    public Optional<String> resolve(String named, String fallback) {
        String merchant = named != null && !named.isBlank() ? named : only().orElse(fallback);
        return reaches(merchant) ? Optional.of(merchant) : Optional.empty();
    }
}
