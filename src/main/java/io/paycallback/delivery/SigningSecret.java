package io.paycallback.delivery;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;

/**
 * A Standard Webhooks symmetric signing secret ({@code whsec_} + base64 of 24 to 64 random bytes) and the v1
 * signature it makes: base64 of HMAC-SHA256 over {@code id.timestamp.body}. Never printed: a bad one is refused naming
 * its configuration key only.
 */
final class SigningSecret {

    static final String PREFIX = "whsec_";
    static final int MIN_BYTES = 24;
    static final int MAX_BYTES = 64;
    private static final String HMAC = "HmacSHA256";

    private final SecretKeySpec key;
    private final Mac prototype;

    private SigningSecret(byte[] bytes) {
        this.key = new SecretKeySpec(bytes, HMAC);
        this.prototype = keyed();
    }

    /** @param key the configuration key it came from, for the message when it is not a secret */
    static SigningSecret parse(String text, String key) {
        byte[] bytes = null;
        if (text != null && text.startsWith(PREFIX)) {
            try {
                bytes = Base64.getDecoder().decode(text.substring(PREFIX.length()).trim());
            } catch (IllegalArgumentException notBase64) {
                bytes = null;
            }
        }
        if (bytes == null || bytes.length < MIN_BYTES || bytes.length > MAX_BYTES) {
            throw new IllegalArgumentException(key + ": not a signing secret; expected " + PREFIX + " followed by the base64 of "
                    + MIN_BYTES + " to " + MAX_BYTES + " random bytes");
        }
        return new SigningSecret(bytes);
    }

    /** {@code v1,<base64 HMAC-SHA256 of "id.timestamp.body">} over exactly the bytes sent. */
    String sign(String webhookId, long timestamp, byte[] body) {
        Mac mac = mac();
        mac.update((webhookId + "." + timestamp + ".").getBytes(StandardCharsets.UTF_8));
        return "v1," + Base64.getEncoder().encodeToString(mac.doFinal(body));
    }

    /** A fresh copy of the keyed MAC: cloning skips deriving the key's pads again, and copies are never shared. */
    private Mac mac() {
        try {
            return (Mac) prototype.clone();
        } catch (CloneNotSupportedException notCloneable) {
            return keyed();
        }
    }

    private Mac keyed() {
        try {
            Mac mac = Mac.getInstance(HMAC);
            mac.init(key);
            return mac;
        } catch (NoSuchAlgorithmException | InvalidKeyException e) {
            throw new IllegalStateException("HMAC-SHA256 is not available", e);
        }
    }

    @Override
    public String toString() {
        return "SigningSecret[hidden]";
    }
}
