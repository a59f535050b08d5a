package io.paycallback.provider;

import io.paycallback.channel.alipay.AlipayCertificates;
import io.paycallback.channel.alipay.AlipayCertificates.AlipayCertificate;
import io.paycallback.channel.alipay.AlipayKeys;

import java.security.PublicKey;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One Alipay application's keys in public-key certificate mode (公钥证书模式): the SNs its requests carry
 * ({@code app_cert_sn}, {@code alipay_root_cert_sn}), the key of Alipay's certificate as configured, and the keys of
 * the certificates Alipay has moved to since, downloaded when an answer named their SN, each checked to chain to the
 * root. A download is held by every registry version that serves the same certificates, so a change elsewhere does
 * not lose it.
 */
public final class AlipayCertificateKeys implements AlipayKeys {

    /** An SN that could not be downloaded is not asked for again sooner than this. */
    static final Duration RETRY_AFTER = Duration.ofMinutes(1);

    private final String appCertSn;
    private final String rootCertSn;
    private final List<X509Certificate> root;
    private final Clock clock;
    /** By SN, the newest first. */
    private volatile Map<String, PublicKey> keys;
    private final Map<String, Instant> failed = new ConcurrentHashMap<>();

    AlipayCertificateKeys(String appCertSn, List<X509Certificate> root, AlipayCertificate alipay, Clock clock) {
        this.appCertSn = appCertSn;
        this.rootCertSn = AlipayCertificates.rootSn(root);
        this.root = List.copyOf(root);
        this.clock = clock;
        this.keys = Map.of(alipay.sn(), alipay.key());
    }

    public String appCertSn() {
        return appCertSn;
    }

    public String rootCertSn() {
        return rootCertSn;
    }

    @Override
    public List<PublicKey> all() {
        return List.copyOf(keys.values());
    }

    @Override
    public Optional<PublicKey> bySn(String sn) {
        return Optional.ofNullable(keys.get(sn));
    }

    /** The key of the certificate configured or downloaded last: what an answer naming no SN is signed with. */
    PublicKey newest() {
        return keys.values().iterator().next();
    }

    /** Whether an SN that failed to download is still to be left alone. */
    boolean recentlyFailed(String sn) {
        Instant at = failed.get(sn);
        return at != null && clock.instant().isBefore(at.plus(RETRY_AFTER));
    }

    /**
     * Takes a downloaded certificate ({@code alipay_cert_content}, its PEM) for {@code sn}: it must chain to the root,
     * be valid now and be the certificate of that SN.
     *
     * @throws IllegalArgumentException saying what is wrong with it
     */
    synchronized PublicKey learn(String sn, String pem) {
        AlipayCertificate certificate;
        try {
            certificate = AlipayCertificates.alipayCertificate(pem, root, clock.instant(), "the downloaded certificate");
            if (!certificate.sn().equals(sn)) {
                throw new IllegalArgumentException("the downloaded certificate is not the one of alipay_cert_sn");
            }
        } catch (IllegalArgumentException e) {
            failed.put(sn, clock.instant());
            throw e;
        }
        Map<String, PublicKey> next = new LinkedHashMap<>();
        next.put(sn, certificate.key());
        keys.forEach(next::putIfAbsent);
        keys = next;
        failed.remove(sn);
        return certificate.key();
    }

    /** A download that did not answer: the SN is left alone for a while like a refused certificate. */
    void failed(String sn) {
        failed.put(sn, clock.instant());
    }

    @Override
    public String toString() {
        return "AlipayCertificateKeys[appCertSn=" + appCertSn + ", alipayCertSns=" + new ArrayList<>(keys.keySet()) + "]";
    }
}
