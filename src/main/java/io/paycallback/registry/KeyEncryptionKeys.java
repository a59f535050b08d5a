package io.paycallback.registry;

import javax.crypto.SecretKey;
import javax.crypto.spec.SecretKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The key-encryption keys, each {@code id:base64-of-32-bytes}; the first seals new secrets, the others still open what
 * they sealed until a re-wrap moves every row to the first. They come from configuration (an environment variable or
 * a file the Kubernetes Secret mounts) and are never stored in the database or logged.
 */
public final class KeyEncryptionKeys {

    private static final Pattern ID = Pattern.compile("[A-Za-z0-9._-]{1,32}");

    /** One key-encryption key; its {@code toString} names the id only. */
    public record Key(String id, SecretKey secretKey) {
        @Override
        public String toString() {
            return "KeyEncryptionKey[" + id + "]";
        }
    }

    private final List<Key> keys;

    private KeyEncryptionKeys(List<Key> keys) {
        this.keys = List.copyOf(keys);
    }

    public static KeyEncryptionKeys none() {
        return new KeyEncryptionKeys(List.of());
    }

    /**
     * @param entries  each {@code id:base64}, blank entries and {@code #} comments skipped
     * @param source   the setting they came from, named in errors (never the value)
     */
    public static KeyEncryptionKeys parse(List<String> entries, String source) {
        List<Key> keys = new ArrayList<>();
        for (String raw : entries) {
            String entry = raw.strip();
            if (entry.isEmpty() || entry.startsWith("#")) {
                continue;
            }
            int colon = entry.indexOf(':');
            String id = colon < 0 ? "" : entry.substring(0, colon);
            if (!ID.matcher(id).matches()) {
                throw new IllegalArgumentException(source + ": each key is id:base64, the id 1 to 32 letters, digits, '.', '_' or '-'");
            }
            byte[] bytes;
            try {
                bytes = Base64.getDecoder().decode(entry.substring(colon + 1).strip());
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(source + ": key '" + id + "' is not base64");
            }
            if (bytes.length != 32) {
                throw new IllegalArgumentException(source + ": key '" + id + "' is " + bytes.length
                        + " bytes; a key-encryption key is 32 random bytes (openssl rand -base64 32)");
            }
            if (keys.stream().anyMatch(key -> key.id().equals(id))) {
                throw new IllegalArgumentException(source + ": key id '" + id + "' is given twice");
            }
            keys.add(new Key(id, new SecretKeySpec(bytes, "AES")));
        }
        return new KeyEncryptionKeys(keys);
    }

    /** The key new secrets are sealed with; empty when none is configured, and then nothing secret can be stored. */
    public Optional<Key> active() {
        return keys.isEmpty() ? Optional.empty() : Optional.of(keys.get(0));
    }

    public Optional<Key> find(String id) {
        return keys.stream().filter(key -> key.id().equals(id)).findFirst();
    }

    public List<String> ids() {
        return keys.stream().map(Key::id).toList();
    }

    @Override
    public String toString() {
        return "KeyEncryptionKeys" + ids();
    }
}
