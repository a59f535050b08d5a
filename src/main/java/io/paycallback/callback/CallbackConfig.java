package io.paycallback.callback;

import io.quarkus.runtime.configuration.MemorySize;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

import java.time.Duration;

/** The callback routes: the gate, the body limit and how long a reservation may take. */
@ConfigMapping(prefix = "paycallback.callback")
public interface CallbackConfig {

    /** Callbacks in flight at once; the next one is answered "busy" at once rather than queued. */
    @WithDefault("256")
    int maxConcurrency();

    @WithDefault("64K")
    MemorySize maxBodySize();

    /** How long a reservation may take before we answer "fail" and let the provider push again. */
    @WithDefault("3s")
    Duration storeTimeout();
}
