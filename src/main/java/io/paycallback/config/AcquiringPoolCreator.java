package io.paycallback.config;

import io.quarkus.reactive.mysql.client.MySQLPoolCreator;
import io.vertx.mysqlclient.MySQLPool;
import io.vertx.sqlclient.Pool;
import jakarta.inject.Singleton;

/**
 * Builds the reactive pool as Quarkus would, from the same options, and hands out {@link AcquiringPool} around it.
 *
 * <p>Why: the 4.5 client's {@code Pool#query/preparedQuery} arm a timer of the pool's connection timeout per call and
 * forget it when acquiring the connection fails (eclipse-vertx/vertx-sql-client#1706). After a database outage every
 * call that failed then logs "Result is already complete" as an uncaught exception one connection timeout later, long
 * after the database is back. Acquiring through {@code getConnection} is bounded by the same timeout without that timer.
 * Quarkus's credentials-provider support is not carried over: this service takes its password from configuration.
 */
@Singleton
public class AcquiringPoolCreator implements MySQLPoolCreator {

    @Override
    public Pool create(Input input) {
        return new AcquiringPool(MySQLPool.pool(input.vertx(), input.mySQLConnectOptionsList(), input.poolOptions()));
    }
}
