package io.paycallback.channel.wxpay;

import com.wechat.pay.java.core.cipher.AeadAesCipher;
import io.paycallback.channel.ChannelVerdict;
import io.paycallback.channel.Rejection;
import io.paycallback.channel.TestCertificates;
import io.paycallback.channel.TestKeys;
import io.paycallback.testsupport.ProviderSigner;
import io.paycallback.testsupport.ProviderSigner.WxCertificate;
import org.junit.jupiter.api.Test;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.PublicKey;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The answer of {@code GET /v3/certificates}: decrypted, checked against its serials and dates, its signature verified. */
class CertificateAnswerTest {

    private static final String ROOT_DN = "CN=Test Root CA, O=Tenpay.com";
    private static final String DN = "CN=Tenpay.com Root CA, OU=Tenpay.com CA Center, O=Tenpay.com, C=CN";
    private static final Instant NOW = Instant.parse("2026-12-07T12:00:00Z");
    private static final Clock CLOCK = Clock.fixed(NOW, ZoneOffset.UTC);
    private static final KeyPair ROOT = TestKeys.rsa();
    private static final KeyPair OLD = TestKeys.rsa();
    private static final KeyPair NEW = TestKeys.rsa();

    private static WxCertificate certificate(KeyPair keys, String serialHex, Instant notBefore, Instant notAfter) {
        X509Certificate certificate = TestCertificates.issue(keys, DN, ROOT.getPrivate(), ROOT_DN,
                new BigInteger(serialHex, 16), notBefore, notAfter, "SHA256withRSA");
        return new WxCertificate(CertificateAnswer.serialOf(certificate), TestCertificates.pem(certificate), notBefore, notAfter);
    }

    private static final WxCertificate OLD_CERTIFICATE = certificate(OLD, "3775B6A45ACD588826D15E583A95F5DD00000001",
            NOW.minus(Duration.ofDays(300)), NOW.plus(Duration.ofDays(30)));
    private static final WxCertificate NEW_CERTIFICATE = certificate(NEW, "5157F09EFDC096DE15EBE81A47057A7200000002",
            NOW.minus(Duration.ofDays(1)), NOW.plus(Duration.ofDays(1800)));

    private static List<CertificateAnswer.PlatformCertificate> read(String body, String signedBy, KeyPair key,
                                                                    Map<String, PublicKey> pinned) throws Rejection {
        return CertificateAnswer.read(ProviderSigner.wxAnswerHeaders(signedBy, key.getPrivate(), body, NOW),
                body.getBytes(StandardCharsets.UTF_8), WxPayMerchant.apiV3Key(WxPayFixture.API_V3_KEY), pinned::get, CLOCK);
    }

    @Test
    void everyCertificateValidNowIsTakenWithItsSerialAndKey() throws Rejection {
        String body = ProviderSigner.wxCertificates(WxPayFixture.API_V3_KEY, List.of(OLD_CERTIFICATE, NEW_CERTIFICATE));

        List<CertificateAnswer.PlatformCertificate> taken = read(body, NEW_CERTIFICATE.serial(), NEW, Map.of());

        assertThat(taken).extracting(CertificateAnswer.PlatformCertificate::serial)
                .containsExactlyInAnyOrder("3775B6A45ACD588826D15E583A95F5DD00000001", "5157F09EFDC096DE15EBE81A47057A7200000002");
        assertThat(taken).filteredOn(one -> one.serial().equals(NEW_CERTIFICATE.serial()))
                .extracting(CertificateAnswer.PlatformCertificate::key).containsExactly(NEW.getPublic());
    }

    @Test
    void theSdkDecryptsWhatWeDecryptTheSameWay() throws Exception {
        String body = ProviderSigner.wxCertificates(WxPayFixture.API_V3_KEY, List.of(NEW_CERTIFICATE));
        var encrypted = new com.fasterxml.jackson.databind.ObjectMapper().readTree(body).path("data").get(0)
                .path("encrypt_certificate");

        String bySdk = new AeadAesCipher(WxPayFixture.API_V3_KEY.getBytes(StandardCharsets.UTF_8)).decrypt(
                encrypted.path("associated_data").asText().getBytes(StandardCharsets.UTF_8),
                encrypted.path("nonce").asText().getBytes(StandardCharsets.UTF_8),
                java.util.Base64.getDecoder().decode(encrypted.path("ciphertext").asText()));
        byte[] byUs = ApiV3Cipher.decrypt(encrypted, WxPayMerchant.apiV3Key(WxPayFixture.API_V3_KEY), "encrypt_certificate");

        assertThat(new String(byUs, StandardCharsets.UTF_8)).isEqualTo(bySdk).isEqualTo(NEW_CERTIFICATE.pem());
    }

    @Test
    void anExpiredOrNotYetValidCertificateIsLeftOut() throws Rejection {
        WxCertificate expired = certificate(OLD, "0A", NOW.minus(Duration.ofDays(400)), NOW.minus(Duration.ofDays(1)));
        WxCertificate future = certificate(OLD, "0B", NOW.plus(Duration.ofDays(1)), NOW.plus(Duration.ofDays(400)));
        String body = ProviderSigner.wxCertificates(WxPayFixture.API_V3_KEY, List.of(expired, NEW_CERTIFICATE, future));

        assertThat(read(body, NEW_CERTIFICATE.serial(), NEW, Map.of()))
                .extracting(CertificateAnswer.PlatformCertificate::serial).containsExactly(NEW_CERTIFICATE.serial());
    }

    @Test
    void anAnswerWithNoCertificateValidNowIsRefused() {
        WxCertificate expired = certificate(OLD, "0A", NOW.minus(Duration.ofDays(400)), NOW.minus(Duration.ofDays(1)));
        String body = ProviderSigner.wxCertificates(WxPayFixture.API_V3_KEY, List.of(expired));

        assertThatThrownBy(() -> read(body, expired.serial(), OLD, Map.of()))
                .isInstanceOfSatisfying(Rejection.class, rejection -> assertThat(rejection.verdict())
                        .isEqualTo(new ChannelVerdict.Malformed("no certificate of the answer is valid now")));
    }

    @Test
    void anotherApiV3KeyDoesNotDecrypt() {
        String body = ProviderSigner.wxCertificates("ffffffffffffffffffffffffffffffff", List.of(NEW_CERTIFICATE));

        assertThatThrownBy(() -> read(body, NEW_CERTIFICATE.serial(), NEW, Map.of()))
                .isInstanceOfSatisfying(Rejection.class, rejection -> assertThat(rejection.verdict())
                        .isEqualTo(new ChannelVerdict.Malformed("encrypt_certificate does not decrypt")));
    }

    @Test
    void aCertificateUnderAnotherSerialIsRefused() {
        WxCertificate misnamed = new WxCertificate("0123456789ABCDEF", NEW_CERTIFICATE.pem(), NEW_CERTIFICATE.effective(),
                NEW_CERTIFICATE.expires());
        String body = ProviderSigner.wxCertificates(WxPayFixture.API_V3_KEY, List.of(misnamed));

        assertThatThrownBy(() -> read(body, misnamed.serial(), NEW, Map.of()))
                .isInstanceOfSatisfying(Rejection.class, rejection -> assertThat(rejection.verdict())
                        .isEqualTo(new ChannelVerdict.Malformed("a certificate is not the one its serial_no names")));
    }

    @Test
    void theAnswerMustBeSignedByOneOfItsCertificatesOrAPinnedKey() throws Rejection {
        String body = ProviderSigner.wxCertificates(WxPayFixture.API_V3_KEY, List.of(NEW_CERTIFICATE));
        KeyPair stranger = TestKeys.rsa();

        assertThatThrownBy(() -> read(body, "PUB_KEY_ID_0000000000000000000000000001", stranger, Map.of()))
                .isInstanceOfSatisfying(Rejection.class, rejection -> assertThat(rejection.verdict())
                        .isEqualTo(new ChannelVerdict.BadSignature("unknown Wechatpay-Serial")));
        assertThatThrownBy(() -> read(body, NEW_CERTIFICATE.serial(), stranger, Map.of()))
                .isInstanceOfSatisfying(Rejection.class, rejection -> assertThat(rejection.verdict())
                        .isEqualTo(new ChannelVerdict.BadSignature("signature does not match")));
        assertThat(read(body, "PUB_KEY_ID_0000000000000000000000000001", stranger,
                Map.of("PUB_KEY_ID_0000000000000000000000000001", stranger.getPublic())))
                .extracting(CertificateAnswer.PlatformCertificate::serial).containsExactly(NEW_CERTIFICATE.serial());
    }
}
