package io.paycallback.config;

import io.vertx.core.AsyncResult;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.mysqlclient.MySQLPool;
import io.vertx.sqlclient.PrepareOptions;
import io.vertx.sqlclient.PreparedQuery;
import io.vertx.sqlclient.Query;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.SqlClient;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.SqlResult;
import io.vertx.sqlclient.Tuple;
import org.jboss.logging.Logger;

import java.util.List;
import java.util.function.Function;
import java.util.stream.Collector;

/**
 * A pool whose one-shot queries take a connection with {@link #getConnection()} and give it back when they complete,
 * instead of the client's own pooled execution (see {@link AcquiringPoolCreator} for why). Waiting for a connection is
 * bounded by the pool's connection timeout either way. Transactions and {@code withConnection} are Pool's own default
 * methods over {@link #getConnection()}; everything else is the wrapped pool's.
 */
final class AcquiringPool implements MySQLPool {

    private static final Logger LOG = Logger.getLogger(AcquiringPool.class);

    private final MySQLPool pool;

    AcquiringPool(MySQLPool pool) {
        this.pool = pool;
    }

    @Override
    public Query<RowSet<Row>> query(String sql) {
        return new AcquiringQuery<>(this, connection -> connection.query(sql));
    }

    @Override
    public PreparedQuery<RowSet<Row>> preparedQuery(String sql) {
        return new AcquiringPreparedQuery<>(this, connection -> connection.preparedQuery(sql));
    }

    @Override
    public PreparedQuery<RowSet<Row>> preparedQuery(String sql, PrepareOptions options) {
        return new AcquiringPreparedQuery<>(this, connection -> connection.preparedQuery(sql, options));
    }

    @Override
    public void getConnection(Handler<AsyncResult<SqlConnection>> handler) {
        getConnection().onComplete(handler);
    }

    /**
     * Every connection handed out, to queries, {@code withConnection} and {@code withTransaction} alike (Pool's default
     * methods take theirs here), reports a broken socket as one line: without a handler the client prints the stack
     * trace to stderr, and the command that was running fails with it anyway and is handled where it was issued.
     */
    @Override
    public Future<SqlConnection> getConnection() {
        return pool.getConnection().map(connection -> connection.exceptionHandler(AcquiringPool::connectionFailed));
    }

    private static void connectionFailed(Throwable failure) {
        LOG.warnf("Database connection failed: %s", failure.toString());
    }

    @Override
    public MySQLPool connectHandler(Handler<SqlConnection> handler) {
        pool.connectHandler(handler);
        return this;
    }

    @Override
    public MySQLPool connectionProvider(Function<Context, Future<SqlConnection>> provider) {
        pool.connectionProvider(provider);
        return this;
    }

    @Override
    public int size() {
        return pool.size();
    }

    @Override
    public void close(Handler<AsyncResult<Void>> handler) {
        pool.close(handler);
    }

    @Override
    public Future<Void> close() {
        return pool.close();
    }

    /** A query run on a connection of its own, acquired when it executes and released when it completes. */
    private static final class AcquiringQuery<T> implements Query<T> {

        private final AcquiringPool pool;
        private final Function<SqlClient, Query<T>> query;

        AcquiringQuery(AcquiringPool pool, Function<SqlClient, Query<T>> query) {
            this.pool = pool;
            this.query = query;
        }

        @Override
        public Future<T> execute() {
            return pool.withConnection(connection -> query.apply(connection).execute());
        }

        @Override
        public void execute(Handler<AsyncResult<T>> handler) {
            execute().onComplete(handler);
        }

        @Override
        public <R> Query<SqlResult<R>> collecting(Collector<Row, ?, R> collector) {
            return new AcquiringQuery<>(pool, connection -> query.apply(connection).collecting(collector));
        }

        @Override
        public <U> Query<RowSet<U>> mapping(Function<Row, U> mapper) {
            return new AcquiringQuery<>(pool, connection -> query.apply(connection).mapping(mapper));
        }
    }

    private static final class AcquiringPreparedQuery<T> implements PreparedQuery<T> {

        private final AcquiringPool pool;
        private final Function<SqlClient, PreparedQuery<T>> query;

        AcquiringPreparedQuery(AcquiringPool pool, Function<SqlClient, PreparedQuery<T>> query) {
            this.pool = pool;
            this.query = query;
        }

        @Override
        public Future<T> execute() {
            return pool.withConnection(connection -> query.apply(connection).execute());
        }

        @Override
        public void execute(Handler<AsyncResult<T>> handler) {
            execute().onComplete(handler);
        }

        @Override
        public Future<T> execute(Tuple tuple) {
            return pool.withConnection(connection -> query.apply(connection).execute(tuple));
        }

        @Override
        public void execute(Tuple tuple, Handler<AsyncResult<T>> handler) {
            execute(tuple).onComplete(handler);
        }

        @Override
        public Future<T> executeBatch(List<Tuple> batch) {
            return pool.withConnection(connection -> query.apply(connection).executeBatch(batch));
        }

        @Override
        public void executeBatch(List<Tuple> batch, Handler<AsyncResult<T>> handler) {
            executeBatch(batch).onComplete(handler);
        }

        @Override
        public <R> PreparedQuery<SqlResult<R>> collecting(Collector<Row, ?, R> collector) {
            return new AcquiringPreparedQuery<>(pool, connection -> query.apply(connection).collecting(collector));
        }

        @Override
        public <U> PreparedQuery<RowSet<U>> mapping(Function<Row, U> mapper) {
            return new AcquiringPreparedQuery<>(pool, connection -> query.apply(connection).mapping(mapper));
        }
    }
}
