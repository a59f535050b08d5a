package io.paycallback.registry;

import io.paycallback.channel.PublicKeys;
import io.paycallback.provider.PrivateKeys;

import java.security.PrivateKey;
import java.security.interfaces.RSAPublicKey;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The RSA keys one build of the registry parsed, by their text. A build starts from the keys of the build before, so a
 * change parses only the keys it changed, a platform's key is parsed once for all its sub-merchants, and the new
 * channels share key objects with the old ones while both are alive; a key no build uses any more goes with the last
 * build that used it. Parsing is most of the cost of a build (10,000 merchants: deploy/bench/registry.sh).
 */
final class ParsedKeys {

    private final Map<String, RSAPublicKey> publicBefore;
    private final Map<String, PrivateKey> privateBefore;
    private final Map<String, RSAPublicKey> publicKeys = new ConcurrentHashMap<>();
    private final Map<String, PrivateKey> privateKeys = new ConcurrentHashMap<>();

    private ParsedKeys(Map<String, RSAPublicKey> publicBefore, Map<String, PrivateKey> privateBefore) {
        this.publicBefore = publicBefore;
        this.privateBefore = privateBefore;
    }

    static ParsedKeys none() {
        return new ParsedKeys(Map.of(), Map.of());
    }

    /** A cache for the next build, holding what this one parsed or reused. */
    ParsedKeys next() {
        return new ParsedKeys(publicKeys, privateKeys);
    }

    /** @throws IllegalArgumentException naming {@code configKey}, never the value */
    RSAPublicKey publicKey(String text, String configKey) {
        return publicKeys.computeIfAbsent(text, t -> {
            RSAPublicKey known = publicBefore.get(t);
            return known != null ? known : PublicKeys.parse(t, configKey);
        });
    }

    /** @throws IllegalArgumentException naming {@code configKey}, never the value */
    PrivateKey privateKey(String text, String configKey) {
        return privateKeys.computeIfAbsent(text, t -> {
            PrivateKey known = privateBefore.get(t);
            return known != null ? known : PrivateKeys.parse(t, configKey);
        });
    }
}
