package io.paycallback.channel.wxpay;

import com.fasterxml.jackson.databind.JsonNode;
import io.paycallback.channel.CallbackKind;
import io.paycallback.channel.CallbackRequest;
import io.paycallback.channel.JsonFields;
import io.paycallback.channel.PublicKeys;
import io.paycallback.channel.Rejection;

import javax.crypto.SecretKey;
import java.io.ByteArrayInputStream;
import java.math.BigInteger;
import java.security.GeneralSecurityException;
import java.security.PublicKey;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.interfaces.RSAPublicKey;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * The answer of {@code GET /v3/certificates}: {@code data} lists the platform certificates, each encrypted with the
 * merchant's APIv3 key ({@code encrypt_certificate}, as a notice's resource is) and named by its {@code serial_no}.
 * Only certificates valid now are taken; the answer itself is signed like every other, by one of those certificates
 * (or a key the merchant pins), which the decryption has just proven to be WeChat Pay's.
 */
public final class CertificateAnswer {

    /** A platform certificate taken from an answer: its serial as WeChat Pay writes it, its key, when it expires. */
    public record PlatformCertificate(String serial, PublicKey key, Instant notAfter) {
    }

    private CertificateAnswer() {
    }

    /**
     * @param headers names in lower case
     * @param pinned  the keys the merchant pins, which may sign the answer too
     * @return the certificates valid now, at least one
     * @throws Rejection bad signature when the answer is not provably WeChat Pay's; malformed when it is not readable,
     *                   a certificate does not decrypt or is not what its serial says, or none is valid now
     */
    public static List<PlatformCertificate> read(Map<String, String> headers, byte[] body, SecretKey apiV3Key,
                                                 Function<String, PublicKey> pinned, Clock clock) throws Rejection {
        JsonNode data = JsonFields.parse(body, "answer").get("data");
        if (data == null || !data.isArray() || data.isEmpty()) {
            throw Rejection.malformed("answer lists no certificates");
        }
        Instant now = clock.instant();
        List<PlatformCertificate> valid = new ArrayList<>();
        for (JsonNode entry : data) {
            String serial = JsonFields.text(entry, "serial_no");
            X509Certificate certificate = certificate(ApiV3Cipher.decrypt(JsonFields.object(entry, "encrypt_certificate"),
                    apiV3Key, "encrypt_certificate"));
            if (!certificate.getSerialNumber().equals(serialNumber(serial))) {
                throw Rejection.malformed("a certificate is not the one its serial_no names");
            }
            if (!(certificate.getPublicKey() instanceof RSAPublicKey)) {
                throw Rejection.malformed("a certificate's key is not RSA");
            }
            if (PublicKeys.validAt(certificate, now)) {
                valid.add(new PlatformCertificate(serial, certificate.getPublicKey(), certificate.getNotAfter().toInstant()));
            }
        }
        if (valid.isEmpty()) {
            throw Rejection.malformed("no certificate of the answer is valid now");
        }
        Map<String, PublicKey> downloaded = new HashMap<>();
        valid.forEach(one -> downloaded.put(one.serial(), one.key()));
        WxPayChannel.checkSignature(new CallbackRequest("", CallbackKind.PAYMENT, headers, body),
                serial -> Optional.ofNullable(downloaded.get(serial)).orElseGet(() -> pinned.apply(serial)), clock);
        return List.copyOf(valid);
    }

    /** A certificate's serial as WeChat Pay names it: the serial number in upper-case hexadecimal. */
    public static String serialOf(X509Certificate certificate) {
        return certificate.getSerialNumber().toString(16).toUpperCase(Locale.ROOT);
    }

    private static BigInteger serialNumber(String serial) throws Rejection {
        try {
            return new BigInteger(serial, 16);
        } catch (NumberFormatException e) {
            throw Rejection.malformed("a serial_no is not hexadecimal");
        }
    }


    private static X509Certificate certificate(byte[] pem) throws Rejection {
        try {
            return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(new ByteArrayInputStream(pem));
        } catch (GeneralSecurityException | ClassCastException e) {
            throw Rejection.malformed("a decrypted certificate is not an X.509 certificate");
        }
    }
}
