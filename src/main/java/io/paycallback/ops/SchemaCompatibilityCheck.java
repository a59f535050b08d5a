package io.paycallback.ops;

import io.quarkus.runtime.Startup;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.enterprise.context.ApplicationScoped;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.MigrationInfo;
import org.flywaydb.core.api.MigrationVersion;

import java.time.Duration;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Objects;

/**
 * Refuses to start where the schema truly cannot serve this build: a later release's contract migration (one that
 * removed or changed what older releases read) raised {@code schema_compatibility.oldest_reader} above the highest
 * migration this build ships. Migrations newer than the build are otherwise fine (Flyway ignores them,
 * {@code quarkus.flyway.ignore-future-migrations}): they only added what this build does not read, which is how a
 * rollback and an old pod restarted during a rolling upgrade keep working.
 */
@Startup
@ApplicationScoped
public class SchemaCompatibilityCheck {

    static final String OLDEST_READER = "SELECT oldest_reader FROM schema_compatibility WHERE id = 1";

    public SchemaCompatibilityCheck(Flyway flyway, Pool pool) {
        MigrationVersion shipped = Arrays.stream(flyway.info().all()).filter(info -> info.getState().isResolved())
                .map(MigrationInfo::getVersion).filter(Objects::nonNull).max(Comparator.naturalOrder())
                .orElse(MigrationVersion.EMPTY);
        int oldestReader = pool.query(OLDEST_READER).execute().await().atMost(Duration.ofSeconds(30))
                .iterator().next().getInteger("oldest_reader");
        if (MigrationVersion.fromVersion(Integer.toString(oldestReader)).compareTo(shipped) > 0) {
            throw new IllegalStateException("The database was migrated by a release that changed what this build reads:"
                    + " schema_compatibility.oldest_reader is " + oldestReader + ", this build ships migrations up to V"
                    + shipped + ". Roll forward to the release that brought V" + oldestReader + " or a later one");
        }
    }
}
