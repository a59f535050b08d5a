package io.paycallback.console;

import io.paycallback.auth.CallerTokens;
import io.paycallback.auth.Roles;
import jakarta.enterprise.context.ApplicationScoped;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Optional;

/**
 * The console's login: an operator's bearer token exchanged for a session cookie, because a browser cannot send a
 * bearer header on plain navigation. The cookie is {@code name.expiry.nonce.mac}, the MAC keyed by that operator's
 * token ({@link CallerTokens#sign}): nothing is stored, any instance can check it, it cannot be forged without the
 * token, and it stops working when it expires or its token is removed from the configuration. It never holds the token.
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

    /** A valid session: whose it is, until when, and the CSRF token its pages carry. */
    public record Session(String operator, Instant expires, String csrf) {
    }

    /** A session just opened, with the cookie value that carries it. */
    public record Opened(Session session, String cookie) {
    }

    private final CallerTokens tokens;
    private final Clock clock;
    private final Duration ttl;
    private final SecureRandom random = new SecureRandom();

    public ConsoleSessions(CallerTokens tokens, Clock clock, ConsoleConfig config) {
        this.tokens = tokens;
        this.clock = clock;
        this.ttl = config.sessionTtl();
    }

    public Duration ttl() {
        return ttl;
    }

    /** Opens a session for an operator's token; empty for any other token (unknown, or the order service's). */
    public Optional<Opened> open(String presentedToken) {
        return tokens.identify(presentedToken)
                .filter(caller -> caller.roles().contains(Roles.OPERATOR))
                .flatMap(caller -> {
                    byte[] nonce = new byte[NONCE_BYTES];
                    random.nextBytes(nonce);
                    long expires = clock.instant().plus(ttl).getEpochSecond();
                    String payload = B64.encodeToString(caller.name().getBytes(StandardCharsets.UTF_8)) + "." + expires
                            + "." + B64.encodeToString(nonce);
                    return mac(caller.name(), "session." + payload).flatMap(mac -> session(caller.name(), expires, nonce)
                            .map(session -> new Opened(session, payload + "." + B64.encodeToString(mac))));
                });
    }

    /** The session a cookie carries, if its MAC is right, it has not expired and its operator still has a token. */
    public Optional<Session> check(String cookie) {
        String[] parts = cookie.split("\\.", -1);
        if (parts.length != 4) {
            return Optional.empty();
        }
        try {
            String name = new String(B64_DECODER.decode(parts[0]), StandardCharsets.UTF_8);
            long expires = Long.parseLong(parts[1]);
            byte[] nonce = B64_DECODER.decode(parts[2]);
            byte[] presented = B64_DECODER.decode(parts[3]);
            Optional<byte[]> expected = mac(name, "session." + parts[0] + "." + parts[1] + "." + parts[2]);
            if (expected.isEmpty() || !MessageDigest.isEqual(expected.get(), presented)
                    || !clock.instant().isBefore(Instant.ofEpochSecond(expires))) {
                return Optional.empty();
            }
            return session(name, expires, nonce);
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    /** Whether a presented CSRF token is the session's, in constant time. */
    public static boolean csrfMatches(Session session, String presented) {
        return presented != null && MessageDigest.isEqual(session.csrf().getBytes(StandardCharsets.UTF_8),
                presented.getBytes(StandardCharsets.UTF_8));
    }

    private Optional<Session> session(String name, long expires, byte[] nonce) {
        return mac(name, "csrf." + B64.encodeToString(nonce))
                .map(csrf -> new Session(name, Instant.ofEpochSecond(expires), B64.encodeToString(csrf)));
    }

    private Optional<byte[]> mac(String name, String data) {
        return tokens.sign(name, Roles.OPERATOR, data.getBytes(StandardCharsets.UTF_8));
    }
}
