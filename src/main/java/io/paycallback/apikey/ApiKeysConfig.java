package io.paycallback.apikey;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

import java.time.Duration;

/** The order service's API keys made as data ({@code paycallback.api-keys.*}, docs/operations.md#api-keys). */
@ConfigMapping(prefix = "paycallback.api-keys")
public interface ApiKeysConfig {

    /** How often each instance asks whether a key was made or revoked; a revocation holds everywhere within this. */
    @WithDefault("1s")
    Duration pollInterval();
}
