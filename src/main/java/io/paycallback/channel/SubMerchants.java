package io.paycallback.channel;

import io.paycallback.channel.alipay.AlipayMerchant;
import io.paycallback.channel.stripe.StripeMerchant;
import io.paycallback.channel.wxpay.WxPayMerchant;
import io.paycallback.config.PayCallbackConfig;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * Which merchants are sub-merchants of which platform (a Stripe connected account, a WeChat Pay partner's sub-merchant,
 * a merchant that authorised an Alipay third-party app), checked once at start: a sub-merchant names a platform that
 * has the provider's keys, an id the provider gives such sub-merchants, and is known to its platform once; a merchant
 * is a provider's direct merchant or a sub-merchant there, never both; and a platform's id, being the last segment of
 * its callback path, is no merchant's.
 */
public final class SubMerchants {

    private static final String MERCHANTS = "paycallback.merchants.";

    /** Per platform, its connected accounts to their merchants. */
    private final Map<String, Map<String, String>> stripeAccounts;
    /** Per platform, its WeChat Pay sub-merchant numbers to their merchants. */
    private final Map<String, Map<String, String>> wxpaySubMerchants;
    /** Per platform, the app ids of the merchants that authorised its Alipay third-party app, to those merchants. */
    private final Map<String, Map<String, String>> alipayAuthorisedApps;

    private SubMerchants(Map<String, Map<String, String>> stripeAccounts, Map<String, Map<String, String>> wxpaySubMerchants,
                         Map<String, Map<String, String>> alipayAuthorisedApps) {
        this.stripeAccounts = stripeAccounts;
        this.wxpaySubMerchants = wxpaySubMerchants;
        this.alipayAuthorisedApps = alipayAuthorisedApps;
    }

    public static SubMerchants of(Map<String, PayCallbackConfig.Merchant> merchants,
                                  Map<String, PayCallbackConfig.Platform> platforms) {
        platforms.keySet().stream().filter(merchants::containsKey).findFirst().ifPresent(id -> {
            throw new IllegalArgumentException("paycallback.platforms." + id + " and " + MERCHANTS + id
                    + " share an id: a callback path's last segment names either a platform or a merchant");
        });
        Map<String, Map<String, String>> stripe = new HashMap<>();
        Map<String, Map<String, String>> wxpay = new HashMap<>();
        Map<String, Map<String, String>> alipay = new HashMap<>();
        new TreeMap<>(merchants).forEach((merchantId, merchant) -> {
            merchant.stripeConnect().ifPresent(connect -> {
                String section = MERCHANTS + merchantId + ".stripe-connect";
                exclusive(merchantId, merchant.stripe().isPresent(), "stripe", section);
                platform(platforms, connect.platform(), PayCallbackConfig.Platform::stripe, "stripe", section);
                if (!StripeMerchant.isAccountId(connect.account())) {
                    throw new IllegalArgumentException(section + ".account is not a Stripe account id (acct_...)");
                }
                once(stripe, connect.platform(), connect.account(), merchantId, section + ".account");
            });
            merchant.wxpayPartner().ifPresent(partner -> {
                String section = MERCHANTS + merchantId + ".wxpay-partner";
                exclusive(merchantId, merchant.wxpay().isPresent(), "wxpay", section);
                platform(platforms, partner.platform(), PayCallbackConfig.Platform::wxpay, "wxpay", section);
                if (!WxPayMerchant.isMchid(partner.subMchid())) {
                    throw new IllegalArgumentException(section + ".sub-mchid is not a WeChat Pay merchant number (digits only)");
                }
                once(wxpay, partner.platform(), partner.subMchid(), merchantId, section + ".sub-mchid");
            });
            merchant.alipayIsv().ifPresent(isv -> {
                String section = MERCHANTS + merchantId + ".alipay-isv";
                exclusive(merchantId, merchant.alipay().isPresent(), "alipay", section);
                platform(platforms, isv.platform(), PayCallbackConfig.Platform::alipay, "alipay", section);
                if (!AlipayMerchant.isAppId(isv.authAppId())) {
                    throw new IllegalArgumentException(section + ".auth-app-id is not an Alipay application id (digits only)");
                }
                once(alipay, isv.platform(), isv.authAppId(), merchantId, section + ".auth-app-id");
            });
        });
        return new SubMerchants(stripe, wxpay, alipay);
    }

    private static void exclusive(String merchantId, boolean direct, String provider, String section) {
        if (direct) {
            throw new IllegalArgumentException(MERCHANTS + merchantId + "." + provider + " and " + section
                    + " exclude each other: a merchant is paid as a merchant of its own or as a platform's sub-merchant");
        }
    }

    private static void platform(Map<String, PayCallbackConfig.Platform> platforms, String platformId,
                                 Function<PayCallbackConfig.Platform, Optional<?>> keys, String provider, String section) {
        if (Optional.ofNullable(platforms.get(platformId)).flatMap(keys).isEmpty()) {
            throw new IllegalArgumentException(section + ".platform names '" + platformId
                    + "', which has no paycallback.platforms." + platformId + "." + provider);
        }
    }

    /** A sub-merchant id names one merchant of its platform: the notices about it can belong to one merchant only. */
    private static void once(Map<String, Map<String, String>> byPlatform, String platformId, String subMerchantId,
                             String merchantId, String key) {
        String other = byPlatform.computeIfAbsent(platformId, id -> new HashMap<>()).putIfAbsent(subMerchantId, merchantId);
        if (other != null) {
            throw new IllegalArgumentException(key + " is " + key.replace(MERCHANTS + merchantId, MERCHANTS + other)
                    + " too: the notices about it can belong to one merchant only");
        }
    }

    /** The platform's connected accounts we serve, each to its merchant. */
    public Map<String, String> stripeAccounts(String platformId) {
        return Map.copyOf(stripeAccounts.getOrDefault(platformId, Map.of()));
    }

    /** The app ids of the merchants that authorised the platform's third-party app, each to its merchant. */
    public Map<String, String> alipayAuthorisedApps(String platformId) {
        return Map.copyOf(alipayAuthorisedApps.getOrDefault(platformId, Map.of()));
    }

    /** The partner's sub-merchant numbers we serve, each to its merchant. */
    public Map<String, String> wxpaySubMerchants(String platformId) {
        return Map.copyOf(wxpaySubMerchants.getOrDefault(platformId, Map.of()));
    }
}
