package io.paycallback.console;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

import java.time.Duration;

/** The operator console at {@code /admin/console}. */
@ConfigMapping(prefix = "paycallback.console")
public interface ConsoleConfig {

    /** How long a console login lasts; then the operator signs in with the token again. */
    @WithDefault("8h")
    Duration sessionTtl();
}
