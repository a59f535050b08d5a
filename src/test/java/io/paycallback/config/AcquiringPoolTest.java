package io.paycallback.config;

import io.paycallback.testsupport.FreePorts;
import io.paycallback.testsupport.TcpProxy;
import io.quarkus.reactive.mysql.client.MySQLPoolCreator;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.mysqlclient.MySQLConnectOptions;
import io.vertx.mysqlclient.MySQLPool;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.PoolOptions;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Tuple;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The database outage of eclipse-vertx/vertx-sql-client#1706, between a pool and the test database: a proxy refuses
 * every connection while pool queries run, then comes back. The client's own pool reports one uncaught
 * "Result is already complete" for (nearly) every failed query a connection timeout later; the pool this service builds reports none,
 * still bounds the wait for a connection by that timeout, and works again as soon as the database is reachable.
 */
class AcquiringPoolTest {

    private static final int CONNECTION_TIMEOUT_SECONDS = 1;
    private static final int QUERIES = 20;

    private final List<Throwable> uncaught = new CopyOnWriteArrayList<>();
    private Vertx vertx;
    private TcpProxy proxy;

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
        return new AcquiringPoolCreator(statementsPerConnection).create(new MySQLPoolCreator.Input() {
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
        Map<String, String> datasource = datasource();
        URI database = URI.create(datasource.get("quarkus.datasource.reactive.url").replaceFirst("^mysql:", "tcp:"));
        return new MySQLConnectOptions().setHost("127.0.0.1").setPort(proxy.port())
                .setDatabase(database.getPath().substring(1))
                .setUser(datasource.get("quarkus.datasource.username"))
                .setPassword(datasource.get("quarkus.datasource.password"))
                .setCachePreparedStatements(true);
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
