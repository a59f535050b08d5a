package io.paycallback.registry;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** How a secret is shown: the first 8 hex digits of its SHA-256, enough to tell keys apart and useless to an attacker. */
public final class Fingerprint {

    private Fingerprint() {
    }

    public static String of(String secret) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(secret.strip().getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest, 0, 4);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is not available", e);
        }
    }
}
