package io.paycallback.testsupport;

import io.paycallback.config.EmbeddedDatabaseConfigSourceFactory;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import io.smallrye.config.SmallRyeConfig;
import org.eclipse.microprofile.config.ConfigProvider;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Hands the test JVM's embedded MariaDB to the application that {@code @QuarkusIntegrationTest} launches. That
 * application runs in the prod profile, which never starts an embedded database, so without this it has no datasource
 * when none is configured. A datasource from the environment or a file reaches it the same way it reached the test
 * JVM, so nothing is passed then (and no password appears on its command line).
 */
public class EmbeddedDatabaseResource implements QuarkusTestResourceLifecycleManager {

    private static final String JDBC_URL = "quarkus.datasource.jdbc.url";
    private static final List<String> DATASOURCE_KEYS = List.of(JDBC_URL, "quarkus.datasource.reactive.url",
            "quarkus.datasource.username", "quarkus.datasource.password");

    @Override
    public Map<String, String> start() {
        SmallRyeConfig config = ConfigProvider.getConfig().unwrap(SmallRyeConfig.class);
        if (!EmbeddedDatabaseConfigSourceFactory.SOURCE_NAME.equals(config.getConfigValue(JDBC_URL).getSourceName())) {
            return Map.of();
        }
        Map<String, String> datasource = new HashMap<>();
        DATASOURCE_KEYS.forEach(key -> datasource.put(key, config.getValue(key, String.class)));
        return datasource;
    }

    @Override
    public void stop() {
        // The embedded server belongs to the JVM (EmbeddedMariaDb) and stops with it.
    }
}
