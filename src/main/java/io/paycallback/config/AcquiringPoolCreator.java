package io.paycallback.config;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.arc.ClientProxy;
import io.quarkus.reactive.mysql.client.MySQLPoolCreator;
import io.smallrye.common.annotation.Identifier;
import io.vertx.mysqlclient.MySQLConnectOptions;
import io.vertx.mysqlclient.MySQLPool;
import io.vertx.sqlclient.Pool;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;

import java.time.Duration;
import java.util.List;

/**
 * Builds the reactive pool as Quarkus would, from the same options, and hands out {@link AcquiringPool} around it.
 *
 * <p>Why: the 4.5 client's {@code Pool#query/preparedQuery} arm a timer of the pool's connection timeout per call and
 * forget it when acquiring the connection fails (eclipse-vertx/vertx-sql-client#1706). After a database outage every
 * call that failed then logs "Result is already complete" as an uncaught exception one connection timeout later, long
 * after the database is back. Acquiring through {@code getConnection} is bounded by the same timeout without that timer.
 * Quarkus's credentials-provider support is not carried over: this service takes its password from configuration.
 *
 * <p>Also: the client caches a prepared statement only if its SQL is at most 2048 characters, and Quarkus has no key
 * for that. A batch's multi-row INSERT of 50 rows is longer, so it was prepared, executed and closed again on every
 * batch: three round trips and a server-side parse each time. Every statement of this service fits in the limit set
 * here. The number cached per connection is capped below the client's default (256): the server's
 * {@code max_prepared_stmt_count} is shared by every pod's every connection, and 256 × 32 connections fill it with
 * two pods ({@link DatabaseConfig#preparedStatementsPerConnection()}).
 *
 * <p>Every statement is bounded by {@link DatabaseConfig#queryTimeout()} ({@link AcquiringPool} says why);
 * the bill comparison's set-based statements by {@link DatabaseConfig#bulkQueryTimeout()}, through a second
 * view of the same pool injected as {@code @Identifier(DatabaseConfig.BULK_POOL)}.
 */
@Singleton
public class AcquiringPoolCreator implements MySQLPoolCreator {

    static final int PREPARED_STATEMENT_SQL_LIMIT = 16 * 1024;
    static final String QUERY_TIMEOUTS = "paycallback.database.query.timeouts";

    private final int statementsPerConnection;
    private final Duration queryTimeout;
    private final Duration bulkQueryTimeout;
    private final Counter timeouts;

    @Inject
    AcquiringPoolCreator(DatabaseConfig config, MeterRegistry registry) {
        this(config.preparedStatementsPerConnection(), config.queryTimeout(),
                config.bulkQueryTimeout(), Counter.builder(QUERY_TIMEOUTS)
                        .description("Statements that did not complete within their bound; each one's connection was closed")
                        .register(registry));
    }

    AcquiringPoolCreator(int statementsPerConnection, Duration queryTimeout, Duration bulkQueryTimeout, Counter timeouts) {
        this.statementsPerConnection = statementsPerConnection;
        this.queryTimeout = queryTimeout;
        this.bulkQueryTimeout = bulkQueryTimeout;
        this.timeouts = timeouts;
    }

    @Override
    public Pool create(Input input) {
        List<MySQLConnectOptions> options = input.mySQLConnectOptionsList();
        options.forEach(connection -> connection.setPreparedStatementCacheSqlLimit(PREPARED_STATEMENT_SQL_LIMIT)
                .setPreparedStatementCacheMaxSize(statementsPerConnection));
        return new AcquiringPool(MySQLPool.pool(input.vertx(), options, input.poolOptions()), queryTimeout, timeouts);
    }

    /** The pool Quarkus built with {@link #create}, whose statements are bounded by the bulk query timeout instead. */
    @Produces
    @Singleton
    @Identifier(DatabaseConfig.BULK_POOL)
    io.vertx.mutiny.sqlclient.Pool bulkStatements(Pool pool) {
        return io.vertx.mutiny.sqlclient.Pool.newInstance(((AcquiringPool) ClientProxy.unwrap(pool)).bounded(bulkQueryTimeout));
    }
}
