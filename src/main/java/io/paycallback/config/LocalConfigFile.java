package io.paycallback.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/** The working directory's {@code config/application.properties} ({@link LocalConfigFileGuard}). */
@ConfigMapping(prefix = "paycallback.local-config")
public interface LocalConfigFile {

    /**
     * Ignore the file in the production profile too, as dev mode and the tests always do: for a packaged
     * application started in a checkout where a deployment's file may sit (the integration tests). Read from the
     * system property or the environment before the configuration is built.
     */
    @WithDefault("false")
    boolean ignore();
}
