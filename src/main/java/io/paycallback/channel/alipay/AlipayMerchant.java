package io.paycallback.channel.alipay;

import io.paycallback.channel.Endpoint;
import io.paycallback.channel.Rejection;

import java.security.PublicKey;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * One merchant's Alipay application and the Alipay public keys that sign its notices, or a platform's third-party
 * application (ISV), whose notices are about the merchants that authorised it.
 *
 * @param alipayKeys Alipay's public key, or in public-key certificate mode the keys of its certificates
 * @param endpoint   a merchant's own application, or a third-party application's with each authorising merchant's app
 *                   id ({@code auth_app_id}) we serve to its merchant id
 */
public record AlipayMerchant(String appId, AlipayKeys alipayKeys, Endpoint endpoint) {

    /** Alipay's application ids are numbers (16 digits today). */
    private static final Pattern APP_ID = Pattern.compile("[0-9]{8,32}");

    public AlipayMerchant {
        if (appId == null || appId.isBlank()) {
            throw new IllegalArgumentException("app-id is empty");
        }
        if (!APP_ID.matcher(appId).matches()) {
            throw new IllegalArgumentException("app-id is not an Alipay application id (digits only)");
        }
        if (alipayKeys == null) {
            throw new IllegalArgumentException("public-key is missing");
        }
        Objects.requireNonNull(endpoint, "endpoint");
    }

    /** An application in public-key mode. */
    public AlipayMerchant(String appId, PublicKey alipayPublicKey, Endpoint endpoint) {
        this(appId, AlipayKeys.of(Objects.requireNonNull(alipayPublicKey, "public-key")), endpoint);
    }

    /** A merchant's own application. */
    public AlipayMerchant(String appId, PublicKey alipayPublicKey) {
        this(appId, alipayPublicKey, Endpoint.DIRECT);
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
        if (!(endpoint instanceof Endpoint.Platform platform)) {
            return pathMerchantId;
        }
        String authAppId = params.get("auth_app_id");
        if (authAppId == null || authAppId.isBlank()) {
            throw Rejection.malformed("a third-party app's notice names no auth_app_id");
        }
        return platform.merchantOf(authAppId, "auth_app_id is not a merchant app configured for this platform");
    }
}
