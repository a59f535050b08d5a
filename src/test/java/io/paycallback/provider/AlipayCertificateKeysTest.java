package io.paycallback.provider;

import io.paycallback.channel.TestCertificates;
import io.paycallback.channel.TestKeys;
import io.paycallback.channel.alipay.AlipayCertificates;
import io.paycallback.testsupport.SettableClock;
import org.junit.jupiter.api.Test;

import java.math.BigInteger;
import java.security.KeyPair;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The keys of an Alipay app in certificate mode: the SNs it sends, and the certificates it takes as Alipay moves. */
class AlipayCertificateKeysTest {

    private static final Instant NOW = Instant.now();
    private static final String ROOT_DN = "CN=Ant Financial Certification Authority R1,OU=Certification Authority,O=Ant Financial,C=CN";
    private static final String ISSUER_DN = "CN=Ant Financial Certification Authority Class 2 R1,OU=Certification Authority,O=Ant Financial,C=CN";
    private static final KeyPair ROOT = TestKeys.rsa();
    private static final KeyPair ISSUER = TestKeys.rsa();
    private static final X509Certificate ROOT_CERT = TestCertificates.root(ROOT, ROOT_DN, BigInteger.ONE, "SHA256withRSA");
    private static final X509Certificate ISSUER_CERT = TestCertificates.issue(ISSUER, ISSUER_DN, ROOT.getPrivate(), ROOT_DN,
            BigInteger.TWO, NOW.minus(Duration.ofDays(10)), NOW.plus(Duration.ofDays(3650)), "SHA256withRSA");

    private final SettableClock clock = SettableClock.at(NOW);

    /** Alipay's certificate file: a certificate of {@code keys} signed by {@code issuer}, then the intermediate. */
    private static String alipayPem(KeyPair keys, PrivateKey issuer, long serial) {
        return TestCertificates.pem(TestCertificates.issue(keys, "CN=2021000000000001,OU=Alipay.com,C=CN", issuer,
                ISSUER_DN, BigInteger.valueOf(serial), NOW.minus(Duration.ofDays(1)), NOW.plus(Duration.ofDays(100)),
                "SHA256withRSA")) + TestCertificates.pem(ISSUER_CERT);
    }

    private AlipayCertificateKeys keys(KeyPair alipay) {
        List<X509Certificate> root = List.of(ROOT_CERT);
        return new AlipayCertificateKeys("0f0e", root, AlipayCertificates.alipayCertificate(
                alipayPem(alipay, ISSUER.getPrivate(), 10), root, NOW, "alipay-certificate"), clock);
    }

    @Test
    void aNewCertificateThatChainsToTheRootIsHeldNewestFirst() {
        KeyPair first = TestKeys.rsa();
        KeyPair next = TestKeys.rsa();
        AlipayCertificateKeys keys = keys(first);
        String pem = alipayPem(next, ISSUER.getPrivate(), 11);
        String sn = AlipayCertificates.sn(AlipayCertificates.read(pem, "pem").get(0));

        keys.learn(sn, pem);

        assertThat(keys.all()).containsExactly(next.getPublic(), first.getPublic());
        assertThat(keys.bySn(sn)).contains(next.getPublic());
        assertThat(keys.rootCertSn()).isEqualTo(AlipayCertificates.rootSn(List.of(ROOT_CERT)));
    }

    @Test
    void aCertificateOfAnotherIssuerOrAnotherSnIsRefusedAndLeftAloneForAMinute() {
        AlipayCertificateKeys keys = keys(TestKeys.rsa());
        String forged = alipayPem(TestKeys.rsa(), TestKeys.rsa().getPrivate(), 12);
        String sn = AlipayCertificates.sn(AlipayCertificates.read(forged, "pem").get(0));

        assertThatThrownBy(() -> keys.learn(sn, forged)).hasMessageContaining("does not chain to the Alipay root");
        assertThat(keys.recentlyFailed(sn)).isTrue();
        clock.advance(Duration.ofMinutes(1));
        assertThat(keys.recentlyFailed(sn)).isFalse();

        String genuine = alipayPem(TestKeys.rsa(), ISSUER.getPrivate(), 13);
        assertThatThrownBy(() -> keys.learn("ffffffffffffffffffffffffffffffff", genuine))
                .hasMessage("the downloaded certificate is not the one of alipay_cert_sn");
        assertThat(keys.all()).hasSize(1);
    }
}
