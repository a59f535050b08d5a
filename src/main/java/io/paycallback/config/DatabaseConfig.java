package io.paycallback.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

import java.time.Duration;

/** The pool's statement bounds ({@link AcquiringPoolCreator}). A Galera node's readiness check is ops' own. */
@ConfigMapping(prefix = "paycallback.database")
public interface DatabaseConfig {

    /** The qualifier ({@code @Identifier}) of the pool whose statements {@link #bulkQueryTimeout()} bounds. */
    String BULK_POOL = "bulk";

    /**
     * How long any statement may take, BEGIN, COMMIT and ROLLBACK included: one still running then fails, and its
     * connection is closed instead of going back to the pool ({@link AcquiringPool}). Well above the slowest
     * statement of callbacks, workers, relay, scanner and housekeeping; below the lease, so a try that meets a
     * statement lost by the client or a database that stopped answering fails and gives its rows back in time.
     */
    @WithDefault("10s")
    Duration queryTimeout();

    /**
     * The same for the bill comparison's set-based statements and the clean-up of staged lines: a day's bill of
     * a million lines takes its statements 14 to 40 s together. Below the statement run's 10 minute lease.
     */
    @WithDefault("5m")
    Duration bulkQueryTimeout();

    /**
     * Prepared statements each pooled connection keeps open on the server. The server caps them for all clients
     * together ({@code max_prepared_stmt_count}, 16382 by default on MySQL 8 and MariaDB), and past that cap every
     * new statement fails with error 1461: pods × {@code quarkus.datasource.reactive.max-size} × this must stay
     * under it (the HPA's 10 pods × 32 × 48 = 15360).
     */
    @WithDefault("48")
    int preparedStatementsPerConnection();
}
