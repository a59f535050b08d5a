package io.paycallback.channel.alipay;

import io.paycallback.channel.Rejection;

import java.security.PublicKey;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * One merchant's Alipay application and the Alipay public key that signs its notices, or a platform's third-party
 * application (ISV), whose notices are about the merchants that authorised it.
 *
 * @param authorisedApps for a third-party application, each authorising merchant's app id ({@code auth_app_id}) we
 *                       serve to its merchant id; empty for a merchant's own application
 */
public record AlipayMerchant(String appId, PublicKey alipayPublicKey, Map<String, String> authorisedApps) {

    /** Alipay's application ids are numbers (16 digits today). */
    private static final Pattern APP_ID = Pattern.compile("[0-9]{8,32}");

    public AlipayMerchant {
        if (appId == null || appId.isBlank()) {
            throw new IllegalArgumentException("app-id is empty");
        }
        if (!APP_ID.matcher(appId).matches()) {
            throw new IllegalArgumentException("app-id is not an Alipay application id (digits only)");
        }
        if (alipayPublicKey == null) {
            throw new IllegalArgumentException("public-key is missing");
        }
        authorisedApps = Map.copyOf(authorisedApps);
    }

    /** A merchant's own application. */
    public AlipayMerchant(String appId, PublicKey alipayPublicKey) {
        this(appId, alipayPublicKey, Map.of());
    }

    /** Whether this is an application id as Alipay gives them. */
    public static boolean isAppId(String appId) {
        return appId != null && APP_ID.matcher(appId).matches();
    }

    /**
     * The merchant a notice is about: for a third-party application, the one whose app id the notice names as
     * {@code auth_app_id} (the app that authorised it), which must be one we serve; for a merchant's own application,
     * the merchant of the path.
     */
    String merchantOf(String pathMerchantId, Map<String, String> params) throws Rejection {
        if (authorisedApps.isEmpty()) {
            return pathMerchantId;
        }
        String authAppId = params.get("auth_app_id");
        if (authAppId == null || authAppId.isBlank()) {
            throw Rejection.malformed("a third-party app's notice names no auth_app_id");
        }
        String merchantId = authorisedApps.get(authAppId);
        if (merchantId == null) {
            throw Rejection.malformed("auth_app_id is not a merchant app configured for this platform");
        }
        return merchantId;
    }
}
