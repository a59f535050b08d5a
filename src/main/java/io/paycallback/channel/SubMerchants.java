package io.paycallback.channel;

import io.paycallback.channel.stripe.StripeMerchant;
import io.paycallback.config.PayCallbackConfig;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Which merchants are sub-merchants of which platform, checked once at start: a sub-merchant names a platform that
 * has the provider's keys, an id the provider gives such sub-merchants, and is known to its platform once; a merchant
 * is a provider's direct merchant or a sub-merchant there, never both; and a platform's id, being the last segment of
 * its callback path, is no merchant's.
 */
public final class SubMerchants {

    private static final String MERCHANTS = "paycallback.merchants.";

    /** Per platform, its connected accounts to their merchants. */
    private final Map<String, Map<String, String>> stripeAccounts;

    private SubMerchants(Map<String, Map<String, String>> stripeAccounts) {
        this.stripeAccounts = stripeAccounts;
    }

    public static SubMerchants of(Map<String, PayCallbackConfig.Merchant> merchants,
                                  Map<String, PayCallbackConfig.Platform> platforms) {
        platforms.keySet().stream().filter(merchants::containsKey).findFirst().ifPresent(id -> {
            throw new IllegalArgumentException("paycallback.platforms." + id + " and " + MERCHANTS + id
                    + " share an id: a callback path's last segment names either a platform or a merchant");
        });
        Map<String, Map<String, String>> stripe = new HashMap<>();
        new TreeMap<>(merchants).forEach((merchantId, merchant) -> merchant.stripeConnect().ifPresent(connect -> {
            String section = MERCHANTS + merchantId + ".stripe-connect";
            if (merchant.stripe().isPresent()) {
                throw new IllegalArgumentException(MERCHANTS + merchantId + ".stripe and " + section
                        + " exclude each other: a merchant is paid on its own Stripe account or on a platform's");
            }
            Optional<PayCallbackConfig.Stripe> platform = Optional.ofNullable(platforms.get(connect.platform()))
                    .flatMap(PayCallbackConfig.Platform::stripe);
            if (platform.isEmpty()) {
                throw new IllegalArgumentException(section + ".platform names '" + connect.platform()
                        + "', which has no paycallback.platforms." + connect.platform() + ".stripe");
            }
            if (!StripeMerchant.isAccountId(connect.account())) {
                throw new IllegalArgumentException(section + ".account is not a Stripe account id (acct_...)");
            }
            String other = stripe.computeIfAbsent(connect.platform(), id -> new HashMap<>())
                    .putIfAbsent(connect.account(), merchantId);
            if (other != null) {
                throw new IllegalArgumentException(section + ".account is " + MERCHANTS + other
                        + ".stripe-connect.account too: an account's events can belong to one merchant only");
            }
        }));
        return new SubMerchants(stripe);
    }

    /** The platform's connected accounts we serve, each to its merchant. */
    public Map<String, String> stripeAccounts(String platformId) {
        return Map.copyOf(stripeAccounts.getOrDefault(platformId, Map.of()));
    }
}
