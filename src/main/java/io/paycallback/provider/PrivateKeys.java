package io.paycallback.provider;

import io.paycallback.channel.PastedBase64;

import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.spec.PKCS8EncodedKeySpec;

/** RSA private keys as configured: PEM ({@code -----BEGIN PRIVATE KEY-----}) or bare base64 DER, PKCS#8 either way. */
public final class PrivateKeys {

    private static final String BEGIN = "-----BEGIN PRIVATE KEY-----";
    private static final String END = "-----END PRIVATE KEY-----";

    private PrivateKeys() {
    }

    /** @throws IllegalArgumentException naming the config key, never showing the value */
    public static PrivateKey parse(String pemOrBase64Der, String configKey) {
        try {
            return KeyFactory.getInstance("RSA").generatePrivate(new PKCS8EncodedKeySpec(
                    PastedBase64.decode(pemOrBase64Der.replace(BEGIN, "").replace(END, ""))));
        } catch (IllegalArgumentException | GeneralSecurityException e) {
            throw new IllegalArgumentException(configKey + " is not an RSA PKCS#8 private key (PEM or base64 DER)");
        }
    }

}
