package io.paycallback.channel.alipay;

import com.alipay.api.internal.util.AntCertificationUtil;
import io.paycallback.channel.TestCertificates;
import io.paycallback.channel.TestKeys;
import org.junit.jupiter.api.Test;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.MessageDigest;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The SNs of Alipay's public-key certificate mode, against alipay-sdk-java's {@code AntCertificationUtil} on a chain
 * shaped like Alipay's (a root file with an ECC root beside RSA roots, an intermediate, the app's and Alipay's
 * certificates), and the check that an Alipay certificate chains to the root.
 */
class AlipayCertificatesTest {

    private static final Instant NOW = Instant.now();
    private static final String R1_DN = "CN=Ant Financial Certification Authority R1,OU=Certification Authority,O=Ant Financial,C=CN";
    private static final String CLASS1_DN = "CN=Ant Financial Certification Authority Class 1,OU=Certification Authority,O=Ant Financial,C=CN";
    private static final String E1_DN = "CN=Ant Financial Certification Authority E1,OU=Certification Authority,O=Ant Financial,C=CN";
    private static final String CLASS2_DN = "CN=Ant Financial Certification Authority Class 2 R1,OU=Certification Authority,O=Ant Financial,C=CN";

    private static final KeyPair R1 = TestKeys.rsa();
    private static final KeyPair CLASS1 = TestKeys.rsa();
    private static final KeyPair E1 = ec();
    private static final KeyPair CLASS2 = TestKeys.rsa();
    private static final X509Certificate ROOT_R1 = TestCertificates.root(R1, R1_DN, new BigInteger("1001"), "SHA256withRSA");
    private static final X509Certificate ROOT_CLASS1 = TestCertificates.root(CLASS1, CLASS1_DN, new BigInteger("1002"), "SHA1withRSA");
    private static final X509Certificate ROOT_E1 = TestCertificates.root(E1, E1_DN, new BigInteger("1003"), "SHA256withECDSA");
    private static final X509Certificate INTERMEDIATE = TestCertificates.issue(CLASS2, CLASS2_DN, R1.getPrivate(), R1_DN,
            new BigInteger("2001"), NOW.minus(Duration.ofDays(10)), NOW.plus(Duration.ofDays(3650)), "SHA256withRSA");
    private static final KeyPair ALIPAY = TestKeys.rsa();
    private static final X509Certificate ALIPAY_CERT = TestCertificates.issue(ALIPAY,
            "CN=2021000000000001,OU=Alipay.com,O=支付宝(中国)网络技术有限公司,C=CN", CLASS2.getPrivate(), CLASS2_DN,
            new BigInteger("4000000000000000000000001"), NOW.minus(Duration.ofDays(1)), NOW.plus(Duration.ofDays(1000)),
            "SHA256withRSA");
    private static final X509Certificate APP_CERT = TestCertificates.issue(TestKeys.rsa(),
            "CN=2021000000000001,OU=Alipay.com,O=某某网络科技有限公司,C=CN", CLASS2.getPrivate(), CLASS2_DN,
            new BigInteger("123456789012345678901234567890"), NOW.minus(Duration.ofDays(1)), NOW.plus(Duration.ofDays(1000)),
            "SHA256withRSA");
    private static final String ROOT_PEM = TestCertificates.pem(ROOT_CLASS1) + TestCertificates.pem(ROOT_E1)
            + TestCertificates.pem(ROOT_R1);
    private static final String ALIPAY_PEM = TestCertificates.pem(ALIPAY_CERT) + TestCertificates.pem(INTERMEDIATE);

    private static KeyPair ec() {
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
            generator.initialize(new ECGenParameterSpec("secp256r1"));
            return generator.generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * The SDK's algorithm written out: MD5 of the issuer's RFC 2253 name (most specific attribute last as these
     * certificates encode it, so {@code C=CN} first) and the decimal serial, in 32 hex digits.
     */
    private static String md5(String text) throws GeneralSecurityException {
        return HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(text.getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void appCertSnIsTheSdksAndTheMd5OfIssuerAndDecimalSerial() throws Exception {
        String sn = AlipayCertificates.sn(APP_CERT);

        assertThat(sn).isEqualTo(AntCertificationUtil.getCertSN(APP_CERT))
                .isEqualTo(md5("C=CN,O=Ant Financial,OU=Certification Authority,CN=Ant Financial Certification Authority Class 2 R1"
                        + "123456789012345678901234567890"))
                .hasSize(32);
    }

    @Test
    void rootCertSnJoinsTheRsaSignedRootsOnlyAsTheSdkDoes() throws Exception {
        String sn = AlipayCertificates.rootSn(AlipayCertificates.read(ROOT_PEM, "root"));

        assertThat(sn).isEqualTo(AntCertificationUtil.getRootCertSN(ROOT_PEM))
                .isEqualTo(md5("C=CN,O=Ant Financial,OU=Certification Authority,CN=Ant Financial Certification Authority Class 1"
                        + "1002") + "_" + md5("C=CN,O=Ant Financial,OU=Certification Authority,CN=Ant Financial Certification Authority R1"
                        + "1001"));
    }

    @Test
    void anAlipayCertificateThatChainsToTheRootGivesItsKeyAndSn() throws Exception {
        AlipayCertificates.AlipayCertificate certificate = AlipayCertificates.alipayCertificate(ALIPAY_PEM,
                AlipayCertificates.read(ROOT_PEM, "root"), NOW, "alipay-certificate");

        assertThat(AntCertificationUtil.isTrusted(ALIPAY_PEM, ROOT_PEM)).isTrue();
        assertThat(certificate.key()).isEqualTo(ALIPAY.getPublic());
        assertThat(certificate.sn()).isEqualTo(AntCertificationUtil.getCertSN(ALIPAY_CERT));
    }

    @Test
    void aCertificateOfAnotherCaIsRefused() {
        KeyPair stranger = TestKeys.rsa();
        X509Certificate forged = TestCertificates.issue(TestKeys.rsa(), "CN=2021000000000001,OU=Alipay.com,C=CN",
                stranger.getPrivate(), CLASS2_DN, new BigInteger("77"), NOW.minus(Duration.ofDays(1)),
                NOW.plus(Duration.ofDays(10)), "SHA256withRSA");

        assertThatThrownBy(() -> AlipayCertificates.alipayCertificate(TestCertificates.pem(forged) + TestCertificates.pem(INTERMEDIATE),
                AlipayCertificates.read(ROOT_PEM, "root"), NOW, "alipay-certificate"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("alipay-certificate does not chain to the Alipay root certificate");
    }

    @Test
    void anExpiredCertificateIsRefused() {
        X509Certificate expired = TestCertificates.issue(TestKeys.rsa(), "CN=2021000000000001,OU=Alipay.com,C=CN",
                CLASS2.getPrivate(), CLASS2_DN, new BigInteger("78"), NOW.minus(Duration.ofDays(400)),
                NOW.minus(Duration.ofDays(1)), "SHA256withRSA");

        assertThatThrownBy(() -> AlipayCertificates.alipayCertificate(TestCertificates.pem(expired) + TestCertificates.pem(INTERMEDIATE),
                AlipayCertificates.read(ROOT_PEM, "root"), NOW, "alipay-certificate"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("is not valid now");
    }
}
