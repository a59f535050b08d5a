package io.paycallback.channel.alipay;

import java.security.PublicKey;

/** One merchant's Alipay application and the Alipay public key that signs its notices. */
public record AlipayMerchant(String appId, PublicKey alipayPublicKey) {

    public AlipayMerchant {
        if (appId == null || appId.isBlank()) {
            throw new IllegalArgumentException("app-id is empty");
        }
        if (alipayPublicKey == null) {
            throw new IllegalArgumentException("public-key is missing");
        }
    }
}
