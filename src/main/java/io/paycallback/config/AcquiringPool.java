package io.paycallback.config;

import io.micrometer.core.instrument.Counter;
import io.vertx.core.AsyncResult;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.VertxException;
import io.vertx.mysqlclient.MySQLPool;
import io.vertx.sqlclient.PrepareOptions;
import io.vertx.sqlclient.PreparedQuery;
import io.vertx.sqlclient.PreparedStatement;
import io.vertx.sqlclient.Query;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.SqlResult;
import io.vertx.sqlclient.Transaction;
import io.vertx.sqlclient.Tuple;
import io.vertx.sqlclient.impl.SocketConnectionBase;
import io.vertx.sqlclient.impl.SqlConnectionInternal;
import io.vertx.sqlclient.spi.DatabaseMetadata;
import org.jboss.logging.Logger;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collector;

/**
 * A pool whose one-shot queries take a connection with {@link #getConnection()} and give it back when they complete,
 * instead of the client's own pooled execution (see {@link AcquiringPoolCreator} for why). Waiting for a connection is
 * bounded by the pool's connection timeout either way. Transactions and {@code withConnection} are Pool's own default
 * methods over {@link #getConnection()}; everything else is the wrapped pool's.
 *
 * <p>Every statement on a connection handed out here, one-shot or inside {@code withConnection} and
 * {@code withTransaction} (BEGIN, COMMIT and ROLLBACK included), is bounded by the query timeout: one that has not
 * completed by then fails with {@link QueryTimeoutException}, and its connection is closed, never given back to the
 * pool. Why: the 4.5 MySQL client can lose a command for good. When a connection's socket closes without an error (the
 * server or a proxy sent a FIN), its codec fails the command in flight, and a command written from that failure's
 * callback, before the client has marked the connection closed, is neither sent nor failed: the pool handing the
 * connection to its next waiter, or a transaction's ROLLBACK (issue 37). A server or network that stops answering
 * leaves a statement waiting the same way.
 */
final class AcquiringPool implements MySQLPool {

    private static final Logger LOG = Logger.getLogger(AcquiringPool.class);
    private static final int LOGGED_SQL_LENGTH = 120;

    private final MySQLPool pool;
    private final Duration queryTimeout;
    private final Counter timeouts;

    AcquiringPool(MySQLPool pool, Duration queryTimeout, Counter timeouts) {
        this.pool = pool;
        this.queryTimeout = queryTimeout;
        this.timeouts = timeouts;
    }

    /** The same pool, connections and all, whose statements have another bound (the bill comparison's long ones). */
    AcquiringPool bounded(Duration timeout) {
        return new AcquiringPool(pool, timeout, timeouts);
    }

    @Override
    public Query<RowSet<Row>> query(String sql) {
        return new RunQuery<>(sql, this::oneShot, connection -> connection.query(sql));
    }

    @Override
    public PreparedQuery<RowSet<Row>> preparedQuery(String sql) {
        return new RunPreparedQuery<>(sql, this::oneShot, connection -> connection.preparedQuery(sql));
    }

    @Override
    public PreparedQuery<RowSet<Row>> preparedQuery(String sql, PrepareOptions options) {
        return new RunPreparedQuery<>(sql, this::oneShot, connection -> connection.preparedQuery(sql, options));
    }

    /** The connection is a {@link BoundedConnection}, so the statement is bounded there. */
    private <R> Future<R> oneShot(String sql, Function<SqlConnection, Future<R>> execution) {
        return withConnection(execution);
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
        return pool.getConnection().map(connection ->
                new BoundedConnection(connection.exceptionHandler(AcquiringPool::connectionFailed), queryTimeout, timeouts));
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

    /** A statement that did not complete within its bound; its connection was closed. */
    static final class QueryTimeoutException extends VertxException {

        QueryTimeoutException(Duration bound) {
            super("query did not complete within " + shown(bound) + "; its connection was closed", true);
        }

        private static String shown(Duration bound) {
            return bound.toMillis() % 1000 == 0 ? bound.toSeconds() + "s" : bound.toMillis() + "ms";
        }
    }

    /** Where a statement's execution runs: the pool's on a connection of its own, a connection's within its bound. */
    private interface Runner {
        <R> Future<R> run(String sql, Function<SqlConnection, Future<R>> execution);
    }

    /**
     * A pooled connection whose statements are bounded. On expiry the socket is closed at once: the client's own
     * {@code close()} would queue its COM_QUIT behind the statement that does not complete, and would give the
     * connection back to the pool. Closing the socket fails what is in flight and makes the pool forget the connection;
     * this wrapper then never releases it, so no waiter can be handed a connection that is going away.
     */
    private static final class BoundedConnection implements SqlConnection, Runner {

        private final SqlConnection connection;
        private final Duration bound;
        private final Counter timeouts;
        private volatile QueryTimeoutException closedBy;

        BoundedConnection(SqlConnection connection, Duration bound, Counter timeouts) {
            this.connection = connection;
            this.bound = bound;
            this.timeouts = timeouts;
        }

        @Override
        public <R> Future<R> run(String sql, Function<SqlConnection, Future<R>> execution) {
            QueryTimeoutException closed = closedBy;
            if (closed != null) {
                return Future.failedFuture(closed);
            }
            Future<R> running = execution.apply(connection);
            // The statement's own failure passes through; any other is Future.timeout's: the bound ran out first.
            return running.timeout(bound.toMillis(), TimeUnit.MILLISECONDS).recover(failure ->
                    running.failed() && running.cause() == failure ? Future.failedFuture(failure) : abandon(sql));
        }

        private <R> Future<R> abandon(String sql) {
            QueryTimeoutException timeout = new QueryTimeoutException(bound);
            closedBy = timeout;
            timeouts.increment();
            LOG.warnf("%s: %s", timeout.getMessage(), sql.length() <= LOGGED_SQL_LENGTH ? sql
                    : sql.substring(0, LOGGED_SQL_LENGTH) + "...");
            closeSocket();
            return Future.failedFuture(timeout);
        }

        /**
         * No public API drops a pooled connection with a command in flight; the 4.5 client's internals reach its
         * channel: the pooled connection, its physical connection, that one's socket.
         */
        private void closeSocket() {
            SocketConnectionBase physical = (SocketConnectionBase) ((SqlConnectionInternal) connection).unwrap().unwrap();
            physical.socket().channelHandlerContext().channel().close();
        }

        @Override
        public Query<RowSet<Row>> query(String sql) {
            return new RunQuery<>(sql, this, client -> client.query(sql));
        }

        @Override
        public PreparedQuery<RowSet<Row>> preparedQuery(String sql) {
            return new RunPreparedQuery<>(sql, this, client -> client.preparedQuery(sql));
        }

        @Override
        public PreparedQuery<RowSet<Row>> preparedQuery(String sql, PrepareOptions options) {
            return new RunPreparedQuery<>(sql, this, client -> client.preparedQuery(sql, options));
        }

        @Override
        public SqlConnection prepare(String sql, Handler<AsyncResult<PreparedStatement>> handler) {
            throw unbounded();
        }

        @Override
        public Future<PreparedStatement> prepare(String sql) {
            throw unbounded();
        }

        @Override
        public SqlConnection prepare(String sql, PrepareOptions options, Handler<AsyncResult<PreparedStatement>> handler) {
            throw unbounded();
        }

        @Override
        public Future<PreparedStatement> prepare(String sql, PrepareOptions options) {
            throw unbounded();
        }

        /** Cursors and row streams would escape the bound; preparedQuery caches its statements anyway. */
        private static UnsupportedOperationException unbounded() {
            return new UnsupportedOperationException("explicit prepared statements are not bounded: use preparedQuery");
        }

        @Override
        public SqlConnection exceptionHandler(Handler<Throwable> handler) {
            connection.exceptionHandler(handler);
            return this;
        }

        @Override
        public SqlConnection closeHandler(Handler<Void> handler) {
            connection.closeHandler(handler);
            return this;
        }

        @Override
        public void begin(Handler<AsyncResult<Transaction>> handler) {
            begin().onComplete(handler);
        }

        @Override
        public Future<Transaction> begin() {
            return run("BEGIN", SqlConnection::begin).map(BoundedTransaction::new);
        }

        @Override
        public Transaction transaction() {
            Transaction current = connection.transaction();
            return current == null ? null : new BoundedTransaction(current);
        }

        @Override
        public boolean isSSL() {
            return connection.isSSL();
        }

        @Override
        public void close(Handler<AsyncResult<Void>> handler) {
            close().onComplete(handler);
        }

        @Override
        public Future<Void> close() {
            return closedBy == null ? connection.close() : Future.succeededFuture();
        }

        @Override
        public DatabaseMetadata databaseMetadata() {
            return connection.databaseMetadata();
        }

        /** COMMIT and ROLLBACK are statements too; {@code completion()} only watches them. */
        private final class BoundedTransaction implements Transaction {

            private final Transaction transaction;

            BoundedTransaction(Transaction transaction) {
                this.transaction = transaction;
            }

            @Override
            public Future<Void> commit() {
                return run("COMMIT", client -> transaction.commit());
            }

            @Override
            public void commit(Handler<AsyncResult<Void>> handler) {
                commit().onComplete(handler);
            }

            @Override
            public Future<Void> rollback() {
                return run("ROLLBACK", client -> transaction.rollback());
            }

            @Override
            public void rollback(Handler<AsyncResult<Void>> handler) {
                rollback().onComplete(handler);
            }

            @Override
            public void completion(Handler<AsyncResult<Void>> handler) {
                transaction.completion(handler);
            }

            @Override
            public Future<Void> completion() {
                return transaction.completion();
            }
        }
    }

    /** A query whose execution its runner performs: on a connection of its own, or within a connection's bound. */
    private static final class RunQuery<T> implements Query<T> {

        private final String sql;
        private final Runner runner;
        private final Function<SqlConnection, Query<T>> query;

        RunQuery(String sql, Runner runner, Function<SqlConnection, Query<T>> query) {
            this.sql = sql;
            this.runner = runner;
            this.query = query;
        }

        @Override
        public Future<T> execute() {
            return runner.run(sql, connection -> query.apply(connection).execute());
        }

        @Override
        public void execute(Handler<AsyncResult<T>> handler) {
            execute().onComplete(handler);
        }

        @Override
        public <R> Query<SqlResult<R>> collecting(Collector<Row, ?, R> collector) {
            return new RunQuery<>(sql, runner, connection -> query.apply(connection).collecting(collector));
        }

        @Override
        public <U> Query<RowSet<U>> mapping(Function<Row, U> mapper) {
            return new RunQuery<>(sql, runner, connection -> query.apply(connection).mapping(mapper));
        }
    }

    private static final class RunPreparedQuery<T> implements PreparedQuery<T> {

        private final String sql;
        private final Runner runner;
        private final Function<SqlConnection, PreparedQuery<T>> query;

        RunPreparedQuery(String sql, Runner runner, Function<SqlConnection, PreparedQuery<T>> query) {
            this.sql = sql;
            this.runner = runner;
            this.query = query;
        }

        @Override
        public Future<T> execute() {
            return runner.run(sql, connection -> query.apply(connection).execute());
        }

        @Override
        public void execute(Handler<AsyncResult<T>> handler) {
            execute().onComplete(handler);
        }

        @Override
        public Future<T> execute(Tuple tuple) {
            return runner.run(sql, connection -> query.apply(connection).execute(tuple));
        }

        @Override
        public void execute(Tuple tuple, Handler<AsyncResult<T>> handler) {
            execute(tuple).onComplete(handler);
        }

        @Override
        public Future<T> executeBatch(List<Tuple> batch) {
            return runner.run(sql, connection -> query.apply(connection).executeBatch(batch));
        }

        @Override
        public void executeBatch(List<Tuple> batch, Handler<AsyncResult<T>> handler) {
            executeBatch(batch).onComplete(handler);
        }

        @Override
        public <R> PreparedQuery<SqlResult<R>> collecting(Collector<Row, ?, R> collector) {
            return new RunPreparedQuery<>(sql, runner, connection -> query.apply(connection).collecting(collector));
        }

        @Override
        public <U> PreparedQuery<RowSet<U>> mapping(Function<Row, U> mapper) {
            return new RunPreparedQuery<>(sql, runner, connection -> query.apply(connection).mapping(mapper));
        }
    }
}
