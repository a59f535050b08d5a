package io.paycallback.auth;

import io.quarkus.runtime.Startup;
import jakarta.enterprise.context.ApplicationScoped;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The configured bearer tokens, each with its name and roles, checked at start ({@link Startup}): a token shorter
 * than {@value #MIN_LENGTH} characters or shared by two names stops the start, naming its key. Only SHA-256 digests are kept: a presented token is
 * hashed and compared with every digest in constant time, without stopping at a match, so neither the token's length
 * nor which entry matched shows in the time taken.
 */
@Startup
@ApplicationScoped
public class CallerTokens {

    /** The audit name of the deprecated shared token. */
    public static final String LEGACY_NAME = "paycallback.admin.token";
    static final int MIN_LENGTH = 16;
    private static final String HMAC = "HmacSHA256";

    /** Who a token belongs to. */
    public record Caller(String name, Set<String> roles) {
    }

    private record Entry(byte[] digest, Caller caller) {
    }

    private final List<Entry> entries = new ArrayList<>();

    @SuppressWarnings("deprecation")
    public CallerTokens(AuthConfig config) {
        Map<String, String> keyByToken = new HashMap<>();
        add(config.orderService().tokens(), "paycallback.auth.order-service.tokens.", Roles.ORDER_SERVICE, keyByToken);
        add(config.operators().tokens(), "paycallback.auth.operators.tokens.", Roles.OPERATOR, keyByToken);
        config.adminToken().filter(token -> !token.isBlank()).ifPresent(token -> {
            longEnough(token, LEGACY_NAME);
            unique(token, LEGACY_NAME, keyByToken);
            entries.add(new Entry(digest(token), new Caller(LEGACY_NAME, Set.of(Roles.ORDER_SERVICE, Roles.OPERATOR))));
        });
    }

    private void add(Map<String, String> tokens, String prefix, String role, Map<String, String> keyByToken) {
        tokens.forEach((name, token) -> {
            String key = prefix + name;
            longEnough(token, key);
            unique(token, key, keyByToken);
            entries.add(new Entry(digest(token), new Caller(name, Set.of(role))));
        });
    }

    private static void longEnough(String token, String key) {
        if (token.length() < MIN_LENGTH) {
            throw new IllegalStateException(key + " is shorter than " + MIN_LENGTH + " characters");
        }
    }

    /** One token, one caller: a token shared between roles or names would make the audit log's names meaningless. */
    private static void unique(String token, String key, Map<String, String> keyByToken) {
        String other = keyByToken.putIfAbsent(token, key);
        if (other != null) {
            throw new IllegalStateException(key + " has the same token as " + other + ": give each caller its own");
        }
    }

    /** The caller a presented token belongs to, if any. */
    public Optional<Caller> identify(String presented) {
        byte[] digest = digest(presented);
        Caller found = null;
        for (Entry entry : entries) {
            if (MessageDigest.isEqual(entry.digest(), digest)) {
                found = entry.caller();
            }
        }
        return Optional.ofNullable(found);
    }

    /**
     * HMAC-SHA256 of {@code data} keyed by the token of the caller with this name and role, or empty when no such
     * caller is configured (any more). Only a holder of that token could have made it, and removing or rotating the
     * token makes everything it signed worthless: the console's session cookies use this instead of a secret of their
     * own, so they work on every instance and end with their token.
     */
    public Optional<byte[]> sign(String name, String role, byte[] data) {
        for (Entry entry : entries) {
            if (entry.caller().name().equals(name) && entry.caller().roles().contains(role)) {
                try {
                    Mac mac = Mac.getInstance(HMAC);
                    mac.init(new SecretKeySpec(entry.digest(), HMAC));
                    return Optional.of(mac.doFinal(data));
                } catch (GeneralSecurityException e) {
                    throw new IllegalStateException("HmacSHA256 is part of every JDK", e);
                }
            }
        }
        return Optional.empty();
    }

    private static byte[] digest(String token) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }
}
