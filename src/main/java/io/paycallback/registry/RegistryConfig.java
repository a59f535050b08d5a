package io.paycallback.registry;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/** The merchant registry's settings ({@code paycallback.registry.*}, docs/configuration.md#merchants-as-data). */
@ConfigMapping(prefix = "paycallback.registry")
public interface RegistryConfig {

    /** How often each instance asks whether the registry changed; a change is served within this plus a rebuild. */
    @WithDefault("1s")
    Duration pollInterval();

    /**
     * Key-encryption keys, {@code id:base64-of-32-bytes}, the first sealing new secrets; from the Kubernetes Secret as
     * an environment variable. Without one, merchants can still be declared in properties, but nothing secret can be
     * stored through the API.
     */
    Optional<List<String>> keyEncryptionKeys();
}
