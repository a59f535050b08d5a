package io.paycallback.auth;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The shape of an API key made as data: {@code pck_<id>_<secret>}, the id 8 lower-case letters or digits (shown in
 * lists and logs to recognise the key), the secret base64url without padding. The id has a fixed length, so the
 * secret may hold '_' too.
 *
 * @param id     the key's id, its row in {@code api_keys}
 * @param secret what only the holder knows; its SHA-256 is stored
 */
public record ApiKeyToken(String id, String secret) {

    public static final String PREFIX = "pck_";
    public static final int ID_LENGTH = 8;
    private static final Pattern SHAPE = Pattern.compile("pck_([a-z0-9]{8})_([A-Za-z0-9_-]{16,128})");

    public static Optional<ApiKeyToken> parse(String token) {
        if (token == null || !token.startsWith(PREFIX)) {
            return Optional.empty();
        }
        Matcher matcher = SHAPE.matcher(token);
        return matcher.matches() ? Optional.of(new ApiKeyToken(matcher.group(1), matcher.group(2))) : Optional.empty();
    }

    /** What the holder sends: {@code pck_<id>_<secret>}. */
    public String token() {
        return PREFIX + id + "_" + secret;
    }

    /** {@code pck_<id>}: recognises the key, reveals nothing of its secret. */
    public static String prefix(String id) {
        return PREFIX + id;
    }
}
