package io.paycallback.provider;

import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;

/** RSA private keys as configured: PEM ({@code -----BEGIN PRIVATE KEY-----}) or bare base64 DER, PKCS#8 either way. */
public final class PrivateKeys {

    private PrivateKeys() {
    }

    /** @throws IllegalArgumentException naming the config key, never showing the value */
    public static PrivateKey parse(String pemOrBase64Der, String configKey) {
        String base64 = pemOrBase64Der.replaceAll("-----(BEGIN|END) PRIVATE KEY-----", "").replaceAll("\\s", "");
        try {
            return KeyFactory.getInstance("RSA").generatePrivate(new PKCS8EncodedKeySpec(Base64.getDecoder().decode(base64)));
        } catch (IllegalArgumentException | GeneralSecurityException e) {
            throw new IllegalArgumentException(configKey + " is not an RSA PKCS#8 private key (PEM or base64 DER)");
        }
    }
}
