package io.paycallback.inbox;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** SHA-256 of a raw body: how bodies are named in logs and deduplicated in quarantine, never shown themselves. */
public record BodyDigest(String hex) {

    private static final int LOG_PREFIX = 12;

    public static BodyDigest of(byte[] body) {
        try {
            return new BodyDigest(HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(body)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every JVM", e);
        }
    }

    /** Enough to find the row, too little to matter. */
    public String prefix() {
        return hex.substring(0, LOG_PREFIX);
    }
}
