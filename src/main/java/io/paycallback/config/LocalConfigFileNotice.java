package io.paycallback.config;

import io.quarkus.runtime.LaunchMode;
import io.quarkus.runtime.Startup;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

/**
 * Says at start, in the production profile, that the working directory's {@code config/application.properties} was
 * left out: a deployment whose keys seem not to apply then finds why in the first lines of its log.
 */
@Startup
@ApplicationScoped
public class LocalConfigFileNotice {

    private static final Logger LOG = Logger.getLogger(LocalConfigFileNotice.class);

    public LocalConfigFileNotice(LocalConfigFile localConfig) {
        if (localConfig.ignore() && LaunchMode.current() == LaunchMode.NORMAL) {
            LOG.infof("config/application.properties of the working directory is ignored (%s)", LocalConfigFileGuard.IGNORE);
        }
    }
}
