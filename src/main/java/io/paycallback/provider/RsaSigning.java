package io.paycallback.provider;

import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.Signature;
import java.util.Base64;

/** SHA256withRSA (PKCS#1 v1.5, deterministic), the request signature of WeChat Pay v3 and Alipay RSA2. */
final class RsaSigning {

    private RsaSigning() {
    }

    static String sign(PrivateKey key, byte[] message) {
        try {
            Signature signer = Signature.getInstance("SHA256withRSA");
            signer.initSign(key);
            signer.update(message);
            return Base64.getEncoder().encodeToString(signer.sign());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("SHA256withRSA unavailable or key unusable", e);
        }
    }
}
