package io.paycallback.health;

import io.quarkus.runtime.Startup;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.MigrationInfo;
import org.flywaydb.core.api.MigrationVersion;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Objects;

/**
 * Refuses to start where the schema truly cannot serve this build: a later release's contract migration (one that
 * removed or changed what older releases read) raised {@code schema_compatibility.oldest_reader} above the highest
 * migration this build ships. Migrations newer than the build are otherwise fine (Flyway ignores them,
 * {@code quarkus.flyway.ignore-future-migrations}): they only added what this build does not read, which is how a
 * rollback and an old pod restarted during a rolling upgrade keep working. Asked right after Flyway's migration at
 * start, over Flyway's own connection; where the start migrates nothing (the image's AOT training runs without a
 * database), there is nothing to ask.
 */
@Startup
@ApplicationScoped
public class SchemaCompatibilityCheck {

    static final String OLDEST_READER = "SELECT oldest_reader FROM schema_compatibility WHERE id = 1";

    public SchemaCompatibilityCheck(Flyway flyway,
                                    @ConfigProperty(name = "quarkus.flyway.migrate-at-start") boolean migrateAtStart)
            throws SQLException {
        if (!migrateAtStart) {
            return;
        }
        MigrationVersion shipped = Arrays.stream(flyway.info().all()).filter(info -> info.getState().isResolved())
                .map(MigrationInfo::getVersion).filter(Objects::nonNull).max(Comparator.naturalOrder())
                .orElse(MigrationVersion.EMPTY);
        int oldestReader;
        try (Connection connection = flyway.getConfiguration().getDataSource().getConnection();
             Statement statement = connection.createStatement();
             ResultSet row = statement.executeQuery(OLDEST_READER)) {
            row.next();
            oldestReader = row.getInt("oldest_reader");
        }
        if (MigrationVersion.fromVersion(Integer.toString(oldestReader)).compareTo(shipped) > 0) {
            throw new IllegalStateException("The database was migrated by a release that changed what this build reads:"
                    + " schema_compatibility.oldest_reader is " + oldestReader + ", this build ships migrations up to V"
                    + shipped + ". Roll forward to the release that brought V" + oldestReader + " or a later one");
        }
    }
}
