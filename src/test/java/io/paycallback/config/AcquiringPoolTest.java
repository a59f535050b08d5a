package io.paycallback.config;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.paycallback.config.AcquiringPool.QueryTimeoutException;
import io.paycallback.testsupport.FreePorts;
import io.paycallback.testsupport.TcpProxy;
import io.quarkus.reactive.mysql.client.MySQLPoolCreator;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.mysqlclient.MySQLConnectOptions;
import io.vertx.mysqlclient.MySQLPool;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.PoolOptions;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Tuple;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The database outage of eclipse-vertx/vertx-sql-client#1706, between a pool and the test database: a proxy refuses
 * every connection while pool queries run, then comes back. The client's own pool reports one uncaught
 * "Result is already complete" for (nearly) every failed query a connection timeout later; the pool this service builds reports none,
 * still bounds the wait for a connection by that timeout, and works again as soon as the database is reachable.
 *
 * <p>And the bound on every statement (issue 37): a statement the client loses, or one the database never answers,
 * fails within the query timeout, and its connection is closed rather than given back.
 */
class AcquiringPoolTest {

    private static final int CONNECTION_TIMEOUT_SECONDS = 1;
    private static final Duration QUERY_TIMEOUT = Duration.ofSeconds(1);
    private static final int QUERIES = 20;

    private final List<Throwable> uncaught = new CopyOnWriteArrayList<>();
    private final Counter timeouts = new SimpleMeterRegistry().counter(AcquiringPoolCreator.QUERY_TIMEOUTS);
    private Vertx vertx;
    private TcpProxy proxy;

    /**
     * One query straight to the database first, without the tests' one-second timeouts: a cold JVM on a loaded machine
     * can take longer than that over its first connection, and whichever test runs first would fail its warm-up.
     */
    @BeforeAll
    static void warmUp() throws Exception {
        Vertx vertx = Vertx.vertx();
        try {
            Pool pool = MySQLPool.pool(vertx, List.of(directOptions()), new PoolOptions().setMaxSize(1));
            assertThat(await(pool.query("SELECT 1").execute()).size()).isEqualTo(1);
        } finally {
            vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }

    @BeforeEach
    void start() throws Exception {
        vertx = Vertx.vertx();
        vertx.exceptionHandler(uncaught::add);
        URI database = URI.create(datasource().get("quarkus.datasource.reactive.url").replaceFirst("^mysql:", "tcp:"));
        proxy = new TcpProxy(FreePorts.next(), database.getHost(), database.getPort());
    }

    @AfterEach
    void stop() throws Exception {
        proxy.close();
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @Test
    void theClientsOwnPoolReportsEveryQueryThatFailedDuringTheOutage() throws Exception {
        Pool pool = MySQLPool.pool(vertx, List.of(connectOptions()), poolOptions(4));

        outage(pool);

        assertThat(uncaught)
                .as("vertx-sql-client#1706 reproduced; if this fails, the client is fixed and AcquiringPool can go")
                .hasSizeGreaterThan(QUERIES / 2)
                .allSatisfy(e -> assertThat(e).isInstanceOf(IllegalStateException.class).hasMessage("Result is already complete"));
    }

    @Test
    void theServicesPoolReportsNothingAndRecoversAtOnce() throws Exception {
        Pool pool = created(poolOptions(4));

        outage(pool);

        assertThat(uncaught).isEmpty();
        assertThat(await(pool.preparedQuery("SELECT ?").execute(Tuple.of(7))).iterator().next().getInteger(0)).isEqualTo(7);
    }

    @Test
    void waitingForAConnectionIsStillBoundedByTheConnectionTimeout() throws Exception {
        Pool pool = created(poolOptions(1));
        SqlConnection held = await(pool.getConnection());

        long started = System.nanoTime();
        Throwable failure = awaitFailure(pool.query("SELECT 1").execute());
        Duration waited = Duration.ofNanos(System.nanoTime() - started);

        assertThat(failure).hasMessageContaining("Timeout");
        assertThat(waited).isBetween(Duration.ofMillis(900), Duration.ofSeconds(5));
        await(held.close());
        assertThat(await(pool.query("SELECT 1").execute()).size()).isEqualTo(1);
        assertThat(uncaught).isEmpty();
    }

    @Test
    void aConnectionKeepsNoMorePreparedStatementsOpenOnTheServerThanItsCap() throws Exception {
        int distinct = 30;

        assertThat(openStatementsAfterPreparing(distinct, created(poolOptions(1), 8))).isEqualTo(8);
        assertThat(openStatementsAfterPreparing(distinct, created(poolOptions(1), 256)))
                .as("the client's default keeps every statement it prepared")
                .isEqualTo(distinct);
    }

    @Test
    void aStatementTheDatabaseNeverAnswersFailsWithinTheBoundAndItsConnectionIsClosedNotReused() throws Exception {
        Pool pool = created(poolOptions(1));
        long before = connectionId(pool);
        proxy.blackhole();

        long started = System.nanoTime();
        Throwable failure = awaitFailure(pool.query("SELECT 1").execute());
        Duration waited = Duration.ofNanos(System.nanoTime() - started);

        assertThat(failure).isInstanceOf(QueryTimeoutException.class)
                .hasMessage("query did not complete within 1s; its connection was closed");
        assertThat(waited).isBetween(QUERY_TIMEOUT.minusMillis(50), QUERY_TIMEOUT.plusSeconds(5));
        assertThat(timeouts.count()).isEqualTo(1);
        proxy.restore();
        assertThat(connectionId(pool)).as("the next query runs on a new connection").isNotEqualTo(before);
        assertThat(serverClosed(before)).as("the server saw connection %d closed", before).isTrue();
        assertThat(uncaught).isEmpty();
    }

    @Test
    void aTransactionWhoseStatementIsNeverAnsweredFailsWithinTheBound() throws Exception {
        Pool pool = created(poolOptions(1));
        assertThat(await(pool.query("SELECT 1").execute()).size()).isEqualTo(1);

        long started = System.nanoTime();
        Throwable failure = awaitFailure(pool.withTransaction(connection -> {
            proxy.blackhole();
            return connection.query("SELECT 1").execute();
        }));
        Duration waited = Duration.ofNanos(System.nanoTime() - started);

        assertThat(failure).isInstanceOf(QueryTimeoutException.class);
        assertThat(waited).as("the ROLLBACK on the closed connection fails at once, not after a second bound")
                .isLessThan(QUERY_TIMEOUT.multipliedBy(2));
        proxy.restore();
        assertThat(await(pool.withTransaction(connection -> connection.query("SELECT 1").execute())).size()).isEqualTo(1);
    }

    @Test
    void aStatementLongerThanTheBoundFailsUnlessItsPoolHasALongerOne() throws Exception {
        Pool pool = created(poolOptions(2));
        Pool bulk = ((AcquiringPool) pool).bounded(Duration.ofSeconds(30));

        assertThat(awaitFailure(pool.query("SELECT SLEEP(2)").execute())).isInstanceOf(QueryTimeoutException.class);
        assertThat(await(bulk.query("SELECT SLEEP(2)").execute()).iterator().next().getInteger(0)).isZero();
    }

    /**
     * The client loses a command given to a connection whose FIN it has read but not yet reported: the first query
     * fails with the connection, the pool hands the connection to the second one in that failure's callback, and the
     * codec, already failed, neither sends nor fails it. The event loop is held while the FIN arrives, so the first
     * query is written before the loop reads it.
     */
    @Test
    void theClientLosesAQueryGivenToAConnectionWhoseCloseIsOnItsWay() throws Exception {
        List<Future<?>> queries = bothQueriesAfterAHangUp(MySQLPool.pool(vertx, List.of(connectOptions()), poolOptions(1)));

        assertThat(awaitFailure(queries.get(0))).isNotNull();
        Thread.sleep(QUERY_TIMEOUT.multipliedBy(2).toMillis());
        assertThat(queries.get(1).isComplete())
                .as("issue 37 reproduced; if this fails, the client no longer loses the command")
                .isFalse();
    }

    @Test
    void theServicesPoolFailsTheQueryTheClientLostWithinTheBound() throws Exception {
        Pool pool = created(poolOptions(1));
        List<Future<?>> queries = bothQueriesAfterAHangUp(pool);
        long started = System.nanoTime();

        assertThat(awaitFailure(queries.get(0))).isNotNull();
        assertThat(awaitFailure(queries.get(1))).isInstanceOf(QueryTimeoutException.class);
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(QUERY_TIMEOUT.plusSeconds(5));
        proxy.restore();
        assertThat(await(pool.query("SELECT 1").execute()).size()).isEqualTo(1);
        assertThat(uncaught).isEmpty();
    }

    /** Warms the pool's one connection on a context's event loop, then holds that loop while the proxy hangs up. */
    private List<Future<?>> bothQueriesAfterAHangUp(Pool pool) throws Exception {
        Context context = vertx.getOrCreateContext();
        CompletableFuture<Integer> warm = new CompletableFuture<>();
        context.runOnContext(v -> pool.query("SELECT 1").execute().onComplete(ar -> {
            if (ar.succeeded()) {
                warm.complete(ar.result().size());
            } else {
                warm.completeExceptionally(ar.cause());
            }
        }));
        assertThat(warm.get(30, TimeUnit.SECONDS)).isEqualTo(1);
        CompletableFuture<List<Future<?>>> issued = new CompletableFuture<>();
        context.runOnContext(v -> {
            proxy.hangUp();
            try {
                Thread.sleep(200);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            issued.complete(List.of(pool.query("SELECT 1").execute(), pool.query("SELECT 2").execute()));
        });
        return issued.get(30, TimeUnit.SECONDS);
    }

    private static long connectionId(Pool pool) throws Exception {
        return await(pool.query("SELECT CONNECTION_ID()").execute()).iterator().next().getLong(0);
    }

    /** Asked past the proxy: whether the server lets go of the connection within a few seconds. */
    private boolean serverClosed(long connectionId) throws Exception {
        Pool server = MySQLPool.pool(vertx, List.of(directOptions()), poolOptions(1));
        try {
            for (int i = 0; i < 50; i++) {
                if (await(server.preparedQuery("SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID = ?")
                        .execute(Tuple.of(connectionId))).iterator().next().getLong(0) == 0) {
                    return true;
                }
                Thread.sleep(100);
            }
            return false;
        } finally {
            await(server.close());
        }
    }

    /** Com_stmt_prepare and Com_stmt_close are per session: their difference is what this connection holds open. */
    private static long openStatementsAfterPreparing(int distinct, Pool pool) throws Exception {
        SqlConnection connection = await(pool.getConnection());
        try {
            for (int i = 0; i < distinct; i++) {
                await(connection.preparedQuery("SELECT ? + " + i).execute(Tuple.of(1)));
            }
            long prepared = 0;
            long closed = 0;
            for (var row : await(connection.query("SHOW SESSION STATUS WHERE Variable_name IN ('Com_stmt_prepare', 'Com_stmt_close')").execute())) {
                long value = Long.parseLong(row.getString(1));
                if (row.getString(0).equalsIgnoreCase("Com_stmt_prepare")) {
                    prepared = value;
                } else {
                    closed = value;
                }
            }
            return prepared - closed;
        } finally {
            await(connection.close());
            await(pool.close());
        }
    }

    /** Queries succeed, then fail while connections are cut and refused, then the proxy comes back for a timeout and more. */
    private void outage(Pool pool) throws Exception {
        assertThat(await(pool.query("SELECT 1").execute()).size()).isEqualTo(1);
        assertThat(proxy.accepted()).isPositive();
        proxy.cut();
        List<Future<?>> failed = new ArrayList<>();
        for (int i = 0; i < QUERIES; i++) {
            failed.add(pool.preparedQuery("SELECT ?").execute(Tuple.of(i)));
        }
        for (Future<?> query : failed) {
            assertThat(awaitFailure(query)).isNotNull();
        }
        proxy.restore();
        Thread.sleep(TimeUnit.SECONDS.toMillis(CONNECTION_TIMEOUT_SECONDS) * 2 + 500);
    }

    private Pool created(PoolOptions options) {
        return created(options, 48);
    }

    private Pool created(PoolOptions options, int statementsPerConnection) {
        return new AcquiringPoolCreator(statementsPerConnection, QUERY_TIMEOUT, QUERY_TIMEOUT, timeouts).create(new MySQLPoolCreator.Input() {
            @Override
            public Vertx vertx() {
                return vertx;
            }

            @Override
            public PoolOptions poolOptions() {
                return options;
            }

            @Override
            public List<MySQLConnectOptions> mySQLConnectOptionsList() {
                return List.of(connectOptions());
            }
        });
    }

    private static PoolOptions poolOptions(int maxSize) {
        return new PoolOptions().setMaxSize(maxSize).setConnectionTimeout(CONNECTION_TIMEOUT_SECONDS)
                .setConnectionTimeoutUnit(TimeUnit.SECONDS);
    }

    private MySQLConnectOptions connectOptions() {
        return directOptions().setHost("127.0.0.1").setPort(proxy.port()).setCachePreparedStatements(true);
    }

    private static MySQLConnectOptions directOptions() {
        Map<String, String> datasource = datasource();
        URI database = URI.create(datasource.get("quarkus.datasource.reactive.url").replaceFirst("^mysql:", "tcp:"));
        return new MySQLConnectOptions().setHost(database.getHost()).setPort(database.getPort())
                .setDatabase(database.getPath().substring(1))
                .setUser(datasource.get("quarkus.datasource.username"))
                .setPassword(datasource.get("quarkus.datasource.password"));
    }

    /** The database the other suites use: the environment's, else this JVM's embedded MariaDB. */
    private static Map<String, String> datasource() {
        String url = System.getenv("QUARKUS_DATASOURCE_REACTIVE_URL");
        if (url != null) {
            return Map.of("quarkus.datasource.reactive.url", url,
                    "quarkus.datasource.username", System.getenv("QUARKUS_DATASOURCE_USERNAME"),
                    "quarkus.datasource.password", System.getenv("QUARKUS_DATASOURCE_PASSWORD"));
        }
        try {
            return EmbeddedMariaDb.datasourceProperties();
        } catch (Exception e) {
            throw new IllegalStateException("no test database", e);
        }
    }

    private static <T> T await(Future<T> future) throws Exception {
        // Generous: a loaded CI machine answers slowly, and only the outcome is asserted here, never the time.
        return future.toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }

    private static Throwable awaitFailure(Future<?> future) throws Exception {
        try {
            await(future);
        } catch (java.util.concurrent.ExecutionException e) {
            return e.getCause();
        }
        throw new AssertionError("the query succeeded");
    }
}
