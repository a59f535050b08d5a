package io.paycallback.channel.alipay;

import io.paycallback.channel.PublicKeys;

import java.io.ByteArrayInputStream;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.interfaces.RSAPublicKey;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;

/**
 * Alipay's public-key certificate mode (公钥证书模式), as alipay-sdk-java's {@code AntCertificationUtil} computes it: a
 * certificate's SN is the MD5, in 32 hexadecimal digits, of its issuer's name (RFC 2253) followed by its serial number
 * in decimal; the root's SN is the SNs of the root file's certificates signed with an RSA algorithm (OIDs under
 * 1.2.840.113549.1.1), joined by {@code _}. Requests carry the app's and the root's SNs; answers name the SN of the
 * Alipay certificate they are signed with.
 */
public final class AlipayCertificates {

    private static final String RSA_SIGNATURES = "1.2.840.113549.1.1";

    private AlipayCertificates() {
    }

    /** An Alipay public-key certificate: its SN and its RSA key, read from its (first) certificate. */
    public record AlipayCertificate(String sn, RSAPublicKey key, X509Certificate certificate) {
    }

    /** {@code app_cert_sn}, and the SN of an Alipay public-key certificate. */
    public static String sn(X509Certificate certificate) {
        try {
            MessageDigest md5 = MessageDigest.getInstance("MD5");
            byte[] digest = md5.digest((certificate.getIssuerX500Principal().getName() + certificate.getSerialNumber())
                    .getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /** {@code alipay_root_cert_sn}: the RSA-signed certificates of the root file only. */
    public static String rootSn(List<X509Certificate> root) {
        List<String> sns = new ArrayList<>();
        for (X509Certificate certificate : root) {
            if (certificate.getSigAlgOID().startsWith(RSA_SIGNATURES)) {
                sns.add(sn(certificate));
            }
        }
        if (sns.isEmpty()) {
            throw new IllegalArgumentException("no certificate of the root is signed with RSA");
        }
        return String.join("_", sns);
    }

    /**
     * Every certificate of a PEM text, in order (the Alipay certificate's file holds its issuer after it).
     *
     * @throws IllegalArgumentException naming {@code what}, never the text
     */
    public static List<X509Certificate> read(String pem, String what) {
        if (pem == null || pem.isBlank()) {
            throw new IllegalArgumentException(what + " is empty");
        }
        try {
            List<X509Certificate> certificates = new ArrayList<>();
            CertificateFactory.getInstance("X.509").generateCertificates(new ByteArrayInputStream(
                    pem.strip().getBytes(StandardCharsets.US_ASCII))).forEach(one -> certificates.add((X509Certificate) one));
            if (certificates.isEmpty()) {
                throw new IllegalArgumentException(what + " holds no certificate");
            }
            return List.copyOf(certificates);
        } catch (GeneralSecurityException | ClassCastException e) {
            throw new IllegalArgumentException(what + " is not a PEM certificate");
        }
    }

    /**
     * An Alipay public-key certificate as its file holds it (the certificate, then its issuers), checked to chain to
     * a certificate of the root and to be valid at {@code now}.
     *
     * @throws IllegalArgumentException naming {@code what} and what is wrong
     */
    public static AlipayCertificate alipayCertificate(String pem, List<X509Certificate> root, Instant now, String what) {
        List<X509Certificate> chain = read(pem, what);
        X509Certificate leaf = chain.get(0);
        Optional<String> untrusted = untrusted(chain, root, now);
        if (untrusted.isPresent()) {
            throw new IllegalArgumentException(what + " " + untrusted.get());
        }
        if (!(leaf.getPublicKey() instanceof RSAPublicKey key)) {
            throw new IllegalArgumentException(what + " holds no RSA key");
        }
        return new AlipayCertificate(sn(leaf), key, leaf);
    }

    /**
     * Why the chain does not lead from its first certificate to a certificate of the root, each signed by the next
     * and valid at {@code now}; empty when it does.
     */
    static Optional<String> untrusted(List<X509Certificate> chain, List<X509Certificate> root, Instant now) {
        List<X509Certificate> issuers = new ArrayList<>(chain);
        issuers.addAll(root);
        X509Certificate current = chain.get(0);
        for (int depth = 0; depth <= issuers.size(); depth++) {
            if (!PublicKeys.validAt(current, now)) {
                return Optional.of("is not valid now (a certificate of its chain has expired or is not yet valid)");
            }
            if (root.contains(current)) {
                return Optional.empty();
            }
            X509Certificate issuer = issuerOf(current, issuers);
            if (issuer == null) {
                return Optional.of("does not chain to the Alipay root certificate");
            }
            current = issuer;
        }
        return Optional.of("does not chain to the Alipay root certificate");
    }

    private static X509Certificate issuerOf(X509Certificate certificate, List<X509Certificate> candidates) {
        for (X509Certificate candidate : candidates) {
            if (candidate.getSubjectX500Principal().equals(certificate.getIssuerX500Principal())
                    && !candidate.equals(certificate) && signedBy(certificate, candidate)) {
                return candidate;
            }
        }
        return null;
    }

    private static boolean signedBy(X509Certificate certificate, X509Certificate issuer) {
        try {
            certificate.verify(issuer.getPublicKey());
            return true;
        } catch (GeneralSecurityException | RuntimeException e) {
            return false;
        }
    }

}
