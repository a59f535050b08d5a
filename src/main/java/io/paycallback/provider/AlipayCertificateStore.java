package io.paycallback.provider;

import io.paycallback.channel.alipay.AlipayCertificates;

import java.lang.ref.WeakReference;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The keys of every Alipay application in public-key certificate mode, one set per set of certificates, shared by
 * every registry version that serves them and dropped with the last one that holds it.
 */
public final class AlipayCertificateStore {

    /** The certificates as configured, PEM. */
    private record Configured(String app, String alipay, String root) {
    }

    private final Clock clock;
    private final Map<Configured, WeakReference<AlipayCertificateKeys>> sets = new ConcurrentHashMap<>();

    AlipayCertificateStore(Clock clock) {
        this.clock = clock;
    }

    /**
     * The keys of these certificates: the set already held for them (with what it downloaded since), or a new one.
     *
     * @param section where they are configured, for errors
     * @throws IllegalArgumentException naming the certificate at fault
     */
    public AlipayCertificateKeys of(String appCertificate, String alipayCertificate, String rootCertificate, String section) {
        Configured configured = new Configured(appCertificate, alipayCertificate, rootCertificate);
        AlipayCertificateKeys[] held = new AlipayCertificateKeys[1];
        sets.compute(configured, (key, before) -> {
            held[0] = before == null ? null : before.get();
            if (held[0] != null) {
                return before;
            }
            held[0] = read(key, section);
            return new WeakReference<>(held[0]);
        });
        sets.values().removeIf(reference -> reference.get() == null);
        return held[0];
    }

    private AlipayCertificateKeys read(Configured configured, String section) {
        List<X509Certificate> root = AlipayCertificates.read(configured.root(), section + "alipay-root-certificate");
        try {
            AlipayCertificates.rootSn(root);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(section + "alipay-root-certificate: " + e.getMessage());
        }
        String appCertSn = AlipayCertificates.sn(AlipayCertificates.read(configured.app(), section + "app-certificate").get(0));
        return new AlipayCertificateKeys(appCertSn, root, AlipayCertificates.alipayCertificate(configured.alipay(), root,
                clock.instant(), section + "alipay-certificate"), clock);
    }
}
