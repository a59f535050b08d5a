package io.paycallback.config;

import io.quarkus.runtime.LaunchMode;
import io.smallrye.config.PropertiesConfigSourceLoader;
import io.smallrye.config.SmallRyeConfigBuilder;
import io.smallrye.config.SmallRyeConfigBuilderCustomizer;

/**
 * Keeps {@code config/application.properties} of the working directory out of dev mode and the tests. That file is
 * where an operator puts a deployment's real merchant keys, destinations and database URLs; a test run in the same
 * checkout would otherwise take them, announce its fake payments to the real destinations and write to the real
 * database. Production reads it as Quarkus always does. The packaged application that the integration tests launch
 * runs in the production profile, and ignores the file too when started with {@value #IGNORE} (or
 * {@code PAYCALLBACK_LOCAL_CONFIG_IGNORE}) set to true: the guard runs before the configuration exists, so it reads
 * the system property and the environment itself.
 * <p>
 * The file comes with SmallRye's default sources (system properties, environment, both application.properties): the
 * system sources are kept, the properties sources left out, and the class path's application.properties added back at
 * its usual ordinal.
 */
public class LocalConfigFileGuard implements SmallRyeConfigBuilderCustomizer {

    /** The setting that makes the production profile ignore the file as well ({@link LocalConfigFile}). */
    public static final String IGNORE = "paycallback.local-config.ignore";
    private static final String IGNORE_VARIABLE = "PAYCALLBACK_LOCAL_CONFIG_IGNORE";
    private static final String CLASS_PATH_PROPERTIES = "application.properties";
    private static final int CLASS_PATH_ORDINAL = 250;

    @Override
    public void configBuilder(SmallRyeConfigBuilder builder) {
        if (!ignoresLocalFile()) {
            return;
        }
        ClassLoader loader = builder.getClassLoader() != null ? builder.getClassLoader()
                : Thread.currentThread().getContextClassLoader();
        if (builder.isAddDefaultSources()) {
            builder.setAddDefaultSources(false);
            builder.setAddSystemSources(true);
        }
        builder.setAddPropertiesSources(false);
        builder.withSources(PropertiesConfigSourceLoader.inClassPath(CLASS_PATH_PROPERTIES, CLASS_PATH_ORDINAL, loader));
    }

    static boolean ignoresLocalFile() {
        LaunchMode mode = LaunchMode.current();
        return mode == LaunchMode.DEVELOPMENT || mode == LaunchMode.TEST || Boolean.getBoolean(IGNORE)
                || Boolean.parseBoolean(System.getenv(IGNORE_VARIABLE));
    }
}
