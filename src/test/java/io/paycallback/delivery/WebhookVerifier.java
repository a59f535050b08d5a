package io.paycallback.delivery;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Base64;

/**
 * Verifies a pay-callback delivery (Standard Webhooks v1) the way the reference libraries do: the receiver of the
 * tests, and the JDK-only example of docs/webhooks.md, which WebhooksDocTest holds to this file.
 */
public final class WebhookVerifier {

    private static final long TOLERANCE_SECONDS = 5 * 60;

    private final SecretKeySpec key;

    /** @param secret the destination's signing secret, "whsec_..." */
    public WebhookVerifier(String secret) {
        key = new SecretKeySpec(Base64.getDecoder().decode(secret.substring("whsec_".length())), "HmacSHA256");
    }

    /**
     * @param body       the request body exactly as received
     * @param nowSeconds your clock, Unix seconds
     */
    public boolean verify(String id, String timestamp, String signatures, byte[] body, long nowSeconds)
            throws GeneralSecurityException {
        if (id == null || timestamp == null || signatures == null) {
            return false;
        }
        long sent;
        try {
            sent = Long.parseLong(timestamp);
        } catch (NumberFormatException notANumber) {
            return false;
        }
        if (Math.abs(nowSeconds - sent) > TOLERANCE_SECONDS) {
            return false;
        }
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(key);
        mac.update((id + "." + timestamp + ".").getBytes(StandardCharsets.UTF_8));
        byte[] expected = mac.doFinal(body);
        for (String signature : signatures.split(" ")) {
            if (signature.startsWith("v1,")) {
                try {
                    if (MessageDigest.isEqual(expected, Base64.getDecoder().decode(signature.substring(3)))) {
                        return true;
                    }
                } catch (IllegalArgumentException notBase64) {
                    // another entry may still match
                }
            }
        }
        return false;
    }
}
