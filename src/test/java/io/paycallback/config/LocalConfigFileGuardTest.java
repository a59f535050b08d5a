package io.paycallback.config;

import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A working directory's config/application.properties is read by the production profile only: with the guard on (dev,
 * test, or the packaged application started with {@link LocalConfigFileGuard#IGNORE}) its settings are gone and the
 * class path's application.properties is still there.
 */
class LocalConfigFileGuardTest {

    private static final String DESTINATION = "paycallback.downstream.destinations.warehouse.url";
    private final String userDir = System.getProperty("user.dir");

    @TempDir
    Path workingDirectory;

    @AfterEach
    void restore() {
        System.setProperty("user.dir", userDir);
        System.clearProperty(LocalConfigFileGuard.IGNORE);
    }

    @Test
    void productionReadsTheWorkingDirectorysFile() throws IOException {
        assertThat(build().getOptionalValue(DESTINATION, String.class)).contains("http://warehouse.example/hooks");
    }

    @Test
    void withTheGuardOnTheFileIsIgnoredAndTheClassPathsPropertiesStay() throws IOException {
        System.setProperty(LocalConfigFileGuard.IGNORE, "true");
        SmallRyeConfig config = build();
        assertThat(config.getOptionalValue(DESTINATION, String.class)).isEmpty();
        assertThat(config.getOptionalValue("quarkus.datasource.db-kind", String.class)).contains("mariadb");
    }

    private SmallRyeConfig build() throws IOException {
        Files.createDirectories(workingDirectory.resolve("config"));
        Files.writeString(workingDirectory.resolve("config/application.properties"), DESTINATION
                + "=http://warehouse.example/hooks\nquarkus.datasource.db-kind=postgresql\n");
        System.setProperty("user.dir", workingDirectory.toString());
        return new SmallRyeConfigBuilder().forClassLoader(getClass().getClassLoader()).addDefaultSources()
                .withCustomizers(new LocalConfigFileGuard()).build();
    }
}
