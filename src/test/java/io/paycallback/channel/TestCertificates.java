package io.paycallback.channel;

import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;

/** X.509 certificates issued per test run: a provider's platform or app certificates, and the CAs above them. */
public final class TestCertificates {

    private TestCertificates() {
    }

    /** A self-signed (root) certificate. */
    public static X509Certificate root(KeyPair keys, String dn, BigInteger serial, String algorithm) {
        return issue(keys, dn, keys.getPrivate(), dn, serial, Instant.now().minusSeconds(86_400),
                Instant.now().plusSeconds(10 * 365 * 86_400L), algorithm);
    }

    /** A certificate of {@code subject}'s key for {@code subjectDn}, signed by the issuer's key in {@code algorithm}. */
    public static X509Certificate issue(KeyPair subject, String subjectDn, PrivateKey issuerKey, String issuerDn,
                                        BigInteger serial, Instant notBefore, Instant notAfter, String algorithm) {
        X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(new X500Name(issuerDn), serial,
                Date.from(notBefore), Date.from(notAfter), new X500Name(subjectDn), subject.getPublic());
        try {
            return new JcaX509CertificateConverter().getCertificate(builder.build(
                    new JcaContentSignerBuilder(algorithm).build(issuerKey)));
        } catch (GeneralSecurityException | OperatorCreationException e) {
            throw new IllegalStateException(e);
        }
    }

    public static String pem(X509Certificate certificate) {
        try {
            return "-----BEGIN CERTIFICATE-----\n"
                    + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(certificate.getEncoded())
                    + "\n-----END CERTIFICATE-----\n";
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }
}
