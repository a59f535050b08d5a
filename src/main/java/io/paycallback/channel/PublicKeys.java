package io.paycallback.channel;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PublicKey;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.interfaces.RSAPublicKey;
import java.security.spec.X509EncodedKeySpec;
import java.time.Instant;
import java.util.Date;

/** RSA public keys as operators paste them into configuration. */
public final class PublicKeys {

    private static final String CERTIFICATE = "-----BEGIN CERTIFICATE-----";
    private static final String PUBLIC_KEY_BEGIN = "-----BEGIN PUBLIC KEY-----";
    private static final String PUBLIC_KEY_END = "-----END PUBLIC KEY-----";

    private PublicKeys() {
    }

    /**
     * Accepts a {@code PUBLIC KEY} PEM, an X.509 {@code CERTIFICATE} PEM (WeChat Pay platform certificates) or bare base64
     * DER SubjectPublicKeyInfo (how Alipay and the WeChat Pay public key are usually handed out).
     *
     * @param configKey named in the error so an operator can find the bad entry; the value itself is never echoed
     * @throws IllegalArgumentException when the value is not an RSA public key in one of those forms
     */
    /** Whether {@code certificate} is valid at {@code now}: begun and not yet expired. */
    public static boolean validAt(X509Certificate certificate, Instant now) {
        try {
            certificate.checkValidity(Date.from(now));
            return true;
        } catch (GeneralSecurityException e) {
            return false;
        }
    }

    public static RSAPublicKey parse(String pemOrBase64Der, String configKey) {
        if (pemOrBase64Der == null || pemOrBase64Der.isBlank()) {
            throw new IllegalArgumentException(configKey + " is empty");
        }
        PublicKey key;
        try {
            key = pemOrBase64Der.contains(CERTIFICATE)
                    ? fromCertificate(pemOrBase64Der)
                    : fromSubjectPublicKeyInfo(der(pemOrBase64Der));
        } catch (GeneralSecurityException | IllegalArgumentException e) {
            throw new IllegalArgumentException(configKey + " is not a public key (expected a PEM PUBLIC KEY, a PEM CERTIFICATE"
                    + " or base64 DER SubjectPublicKeyInfo)");
        }
        if (key instanceof RSAPublicKey rsa) {
            return rsa;
        }
        throw new IllegalArgumentException(configKey + " is not an RSA public key");
    }

    private static PublicKey fromCertificate(String pem) throws GeneralSecurityException {
        CertificateFactory factory = CertificateFactory.getInstance("X.509");
        return factory.generateCertificate(new ByteArrayInputStream(pem.strip().getBytes(StandardCharsets.US_ASCII)))
                .getPublicKey();
    }

    private static byte[] der(String value) {
        String base64 = value;
        int begin = value.indexOf(PUBLIC_KEY_BEGIN);
        if (begin >= 0) {
            int end = value.indexOf(PUBLIC_KEY_END, begin);
            if (end < 0) {
                throw new IllegalArgumentException("unterminated PEM");
            }
            base64 = value.substring(begin + PUBLIC_KEY_BEGIN.length(), end);
        } else if (value.contains("-----BEGIN")) {
            throw new IllegalArgumentException("unsupported PEM type");
        }
        return PastedBase64.decode(base64);
    }


    private static PublicKey fromSubjectPublicKeyInfo(byte[] der) throws GeneralSecurityException {
        return KeyFactory.getInstance("RSA").generatePublic(new X509EncodedKeySpec(der));
    }
}
