package io.paycallback.fault;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The three-node Galera cluster and its HAProxy, driven through {@code deploy/galera/cluster.sh}, the script a developer
 * uses by hand: node N listens on 351N, HAProxy on 3510.
 */
final class GaleraCluster implements AutoCloseable {

    static final String DATABASE = "paycallback";
    static final int PROXY_PORT = 3510;
    private static final Path SCRIPT = Path.of("deploy", "galera", "cluster.sh").toAbsolutePath();

    private final Path dir;
    private final String password;

    GaleraCluster(Path dir, String password) {
        this.dir = dir;
        this.password = password;
    }

    static int port(int node) {
        return 3510 + node;
    }

    String password() {
        return password;
    }

    void up() throws Exception {
        run(Duration.ofMinutes(5), "up");
    }

    void kill(int node) throws Exception {
        run(Duration.ofSeconds(30), "kill", Integer.toString(node));
    }

    /** Restarts a killed node at its recovered position and waits until it is Synced again. */
    Duration rejoin(int node) throws Exception {
        Instant started = Instant.now();
        run(Duration.ofMinutes(3), "rejoin", Integer.toString(node));
        return Duration.between(started, Instant.now());
    }

    void pause(int node) throws Exception {
        run(Duration.ofSeconds(10), "pause", Integer.toString(node));
    }

    void resume(int node) throws Exception {
        run(Duration.ofSeconds(10), "resume", Integer.toString(node));
    }

    void desync(int node, boolean on) throws Exception {
        run(Duration.ofSeconds(30), "desync", Integer.toString(node), on ? "ON" : "OFF");
    }

    Duration awaitSynced(int node) throws Exception {
        Instant started = Instant.now();
        run(Duration.ofMinutes(3), "await", Integer.toString(node), "150");
        return Duration.between(started, Instant.now());
    }

    /** After every node died: the most advanced one bootstraps, the others rejoin. */
    Duration recover() throws Exception {
        Instant started = Instant.now();
        run(Duration.ofMinutes(4), "recover");
        return Duration.between(started, Instant.now());
    }

    String errorLog(int node) throws IOException {
        Path log = dir.resolve("node" + node).resolve("error.log");
        return Files.exists(log) ? Files.readString(log, StandardCharsets.ISO_8859_1) : "";
    }

    /**
     * A connection to the first node that answers, as the service's user, with causal reads: it sees every write any
     * node committed before the query.
     */
    Connection connect() throws SQLException {
        SQLException last = null;
        for (int node = 1; node <= 3; node++) {
            try {
                return connect(node);
            } catch (SQLException e) {
                last = e;
            }
        }
        throw last;
    }

    Connection connect(int node) throws SQLException {
        Connection connection = DriverManager.getConnection("jdbc:mariadb://127.0.0.1:" + port(node) + "/" + DATABASE
                + "?connectTimeout=2000&socketTimeout=20000", "paycallback", password);
        try (Statement statement = connection.createStatement()) {
            statement.execute("SET SESSION wsrep_sync_wait = 1");
        }
        return connection;
    }

    @Override
    public void close() throws Exception {
        run(Duration.ofMinutes(2), "down");
    }

    private void run(Duration timeout, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("bash", SCRIPT.toString()));
        command.addAll(List.of(args));
        Files.createDirectories(dir);
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("cluster.log").toFile()));
        builder.environment().put("GALERA_DIR", dir.toString());
        builder.environment().put("GALERA_PASSWORD", password);
        Process process = builder.start();
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            process.destroyForcibly();
            throw new IllegalStateException("cluster.sh " + String.join(" ", args) + " took over " + timeout
                    + ", see " + dir.resolve("cluster.log"));
        }
        if (process.exitValue() != 0) {
            throw new IllegalStateException("cluster.sh " + String.join(" ", args) + " failed, see " + dir.resolve("cluster.log"));
        }
    }
}
