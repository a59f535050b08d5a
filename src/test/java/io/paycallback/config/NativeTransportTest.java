package io.paycallback.config;

import io.quarkus.test.junit.QuarkusTest;
import io.vertx.core.Vertx;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The epoll transport is a measured CPU saving (docs/performance.md), and Vert.x falls back to NIO without a word when
 * the native library is missing: a dependency dropped from the pom would cost it silently.
 */
@QuarkusTest
@EnabledOnOs(value = OS.LINUX, architectures = {"amd64", "aarch64"})
class NativeTransportTest {

    @Inject
    Vertx vertx;

    @Test
    void vertxRunsOnEpollOnLinux() {
        assertThat(vertx.isNativeTransportEnabled())
                .as("native transport; cause if unavailable: %s", vertx.unavailableNativeTransportCause())
                .isTrue();
    }
}
