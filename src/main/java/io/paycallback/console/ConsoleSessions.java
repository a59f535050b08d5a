package io.paycallback.console;

import io.paycallback.auth.CallerTokens;
import io.paycallback.auth.MerchantScope;
import io.paycallback.auth.Roles;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.config.inject.ConfigProperty;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Base64;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The console's login, as a session cookie, because a browser cannot send a bearer header on plain navigation. Two
 * ways in, one cookie:
 * <ul>
 * <li>an operator's bearer token: the cookie is {@code name.expiry.nonce.mac}, the MAC keyed by that operator's token
 * ({@link CallerTokens#sign}), so it stops working when its token is removed from the configuration;</li>
 * <li>the identity provider's sign-in ({@link ProviderSignIn}): the cookie is
 * {@code p.name.role.merchants.expiry.nonce.mac}, the MAC keyed by a digest of the console's OIDC client secret, which
 * every instance has and which ends every such session when it is rotated. The role and merchant scope are the ones
 * the provider's token gave at sign-in, kept for the session's life (a change at the provider applies at the next
 * sign-in).</li>
 * </ul>
 * Nothing is stored, any instance can check a cookie, it cannot be forged without the key, and it never holds a token.
 * Each session also has a CSRF token, derived the same way from its nonce, that every state change must send back.
 */
@ApplicationScoped
public class ConsoleSessions {

    public static final String COOKIE = "paycallback_console";
    /** Where the cookie is sent and accepted: the console only, never the JSON API (which keeps bearer tokens). */
    public static final String PATH = "/admin/console";

    private static final Base64.Encoder B64 = Base64.getUrlEncoder().withoutPadding();
    private static final Base64.Decoder B64_DECODER = Base64.getUrlDecoder();
    private static final int NONCE_BYTES = 16;
    private static final String PROVIDER = "p";
    private static final String HMAC = "HmacSHA256";

    /**
     * A valid session: whose it is, until when, the CSRF token its pages carry, its role, the merchants it reaches, and
     * whether the identity provider signed it in (then signing out also ends the provider's session).
     */
    public record Session(String operator, Instant expires, String csrf, String role, MerchantScope scope,
                          boolean viaProvider) {

        /** Whether the session may act, not only look. */
        public boolean acts() {
            return Roles.OPERATOR.equals(role);
        }
    }

    /** A session just opened, with the cookie value that carries it. */
    public record Opened(Session session, String cookie) {
    }

    private final CallerTokens tokens;
    private final Clock clock;
    private final Duration ttl;
    private final Optional<byte[]> providerKey;
    private final SecureRandom random = new SecureRandom();

    public ConsoleSessions(CallerTokens tokens, Clock clock, ConsoleConfig config,
                           @ConfigProperty(name = "quarkus.oidc.credentials.secret") Optional<String> clientSecret) {
        this.tokens = tokens;
        this.clock = clock;
        this.ttl = config.sessionTtl();
        this.providerKey = clientSecret.filter(secret -> !secret.isBlank()).map(ConsoleSessions::providerKey);
    }

    public Duration ttl() {
        return ttl;
    }

    /** Opens a session for an operator's token; empty for any other token (unknown, or the order service's). */
    public Optional<Opened> open(String presentedToken) {
        return tokens.identify(presentedToken)
                .filter(caller -> caller.roles().contains(Roles.OPERATOR))
                .flatMap(caller -> {
                    byte[] nonce = nonce();
                    long expires = clock.instant().plus(ttl).getEpochSecond();
                    String payload = B64.encodeToString(caller.name().getBytes(StandardCharsets.UTF_8)) + "." + expires
                            + "." + B64.encodeToString(nonce);
                    return mac(caller.name(), "session." + payload).flatMap(mac -> session(caller.name(), expires, nonce)
                            .map(session -> new Opened(session, payload + "." + B64.encodeToString(mac))));
                });
    }

    /**
     * Opens a session for a person the identity provider signed in, with the one role and the merchants it gave them;
     * empty when no client secret is configured to sign it with.
     */
    public Optional<Opened> openForProvider(String name, String role, MerchantScope scope) {
        if (providerKey.isEmpty()) {
            return Optional.empty();
        }
        byte[] nonce = nonce();
        long expires = clock.instant().plus(ttl).getEpochSecond();
        String payload = PROVIDER + "." + B64.encodeToString(name.getBytes(StandardCharsets.UTF_8)) + "." + role + "."
                + B64.encodeToString(String.join(",", new TreeSet<>(scope.merchants())).getBytes(StandardCharsets.UTF_8))
                + "." + expires + "." + B64.encodeToString(nonce);
        byte[] mac = providerMac("session." + payload);
        Session session = new Session(name, Instant.ofEpochSecond(expires), csrf(providerMac("csrf." + B64.encodeToString(nonce))),
                role, scope, true);
        return Optional.of(new Opened(session, payload + "." + B64.encodeToString(mac)));
    }

    /** The session a cookie carries, if its MAC is right, it has not expired and its key still exists. */
    public Optional<Session> check(String cookie) {
        String[] parts = cookie.split("\\.", -1);
        try {
            if (parts.length == 7 && PROVIDER.equals(parts[0])) {
                return checkProvider(parts);
            }
            if (parts.length != 4) {
                return Optional.empty();
            }
            String name = new String(B64_DECODER.decode(parts[0]), StandardCharsets.UTF_8);
            long expires = Long.parseLong(parts[1]);
            byte[] nonce = B64_DECODER.decode(parts[2]);
            byte[] presented = B64_DECODER.decode(parts[3]);
            Optional<byte[]> expected = mac(name, "session." + parts[0] + "." + parts[1] + "." + parts[2]);
            if (expected.isEmpty() || !MessageDigest.isEqual(expected.get(), presented) || expired(expires)) {
                return Optional.empty();
            }
            return session(name, expires, nonce);
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    private Optional<Session> checkProvider(String[] parts) {
        if (providerKey.isEmpty()) {
            return Optional.empty();
        }
        String payload = String.join(".", Arrays.copyOf(parts, 6));
        if (!MessageDigest.isEqual(providerMac("session." + payload), B64_DECODER.decode(parts[6]))) {
            return Optional.empty();
        }
        long expires = Long.parseLong(parts[4]);
        String role = parts[2];
        if (expired(expires) || !(Roles.OPERATOR.equals(role) || Roles.VIEWER.equals(role))) {
            return Optional.empty();
        }
        String merchants = new String(B64_DECODER.decode(parts[3]), StandardCharsets.UTF_8);
        MerchantScope scope = merchants.isEmpty() ? MerchantScope.ALL : new MerchantScope(Set.of(merchants.split(",")));
        return Optional.of(new Session(new String(B64_DECODER.decode(parts[1]), StandardCharsets.UTF_8),
                Instant.ofEpochSecond(expires), csrf(providerMac("csrf." + parts[5])), role, scope, true));
    }

    /** Whether a presented CSRF token is the session's, in constant time. */
    public static boolean csrfMatches(Session session, String presented) {
        return presented != null && MessageDigest.isEqual(session.csrf().getBytes(StandardCharsets.UTF_8),
                presented.getBytes(StandardCharsets.UTF_8));
    }

    private boolean expired(long expires) {
        return !clock.instant().isBefore(Instant.ofEpochSecond(expires));
    }

    private byte[] nonce() {
        byte[] nonce = new byte[NONCE_BYTES];
        random.nextBytes(nonce);
        return nonce;
    }

    private Optional<Session> session(String name, long expires, byte[] nonce) {
        return mac(name, "csrf." + B64.encodeToString(nonce))
                .map(csrf -> new Session(name, Instant.ofEpochSecond(expires), csrf(csrf), Roles.OPERATOR,
                        MerchantScope.ALL, false));
    }

    private static String csrf(byte[] mac) {
        return B64.encodeToString(mac);
    }

    private Optional<byte[]> mac(String name, String data) {
        return tokens.sign(name, Roles.OPERATOR, data.getBytes(StandardCharsets.UTF_8));
    }

    private byte[] providerMac(String data) {
        try {
            Mac mac = Mac.getInstance(HMAC);
            mac.init(new SecretKeySpec(providerKey.orElseThrow(), HMAC));
            return mac.doFinal(data.getBytes(StandardCharsets.UTF_8));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is part of every JDK", e);
        }
    }

    /** A key of its own for console sessions, so a session's MAC reveals nothing usable with the client secret. */
    private static byte[] providerKey(String clientSecret) {
        try {
            return MessageDigest.getInstance("SHA-256")
                    .digest(("pay-callback console session\0" + clientSecret).getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }
}
