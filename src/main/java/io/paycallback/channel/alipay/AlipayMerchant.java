package io.paycallback.channel.alipay;

import java.security.PublicKey;
import java.util.regex.Pattern;

/** One merchant's Alipay application and the Alipay public key that signs its notices. */
public record AlipayMerchant(String appId, PublicKey alipayPublicKey) {

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
    }
}
