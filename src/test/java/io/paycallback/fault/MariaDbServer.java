package io.paycallback.fault;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A MariaDB server of the fault tier's own, from the machine's {@code mariadbd} on a data directory of its own, so it can
 * be killed and restarted without touching any other server. Grant tables are skipped: any user logs in, as with the
 * embedded server of the other tests.
 */
final class MariaDbServer implements AutoCloseable {

    static final String DATABASE = "paycallback";

    private final Path dir;
    private final int port;
    private final String bufferPool;
    private Process process;

    /** {@code bufferPool} as mariadbd takes it ({@code 64M}, {@code 1G}): InnoDB's cache of data and index pages. */
    MariaDbServer(Path dir, int port, String bufferPool) {
        this.dir = dir;
        this.port = port;
        this.bufferPool = bufferPool;
    }

    int port() {
        return port;
    }

    String jdbcUrl() {
        return "jdbc:mariadb://127.0.0.1:" + port + "/" + DATABASE;
    }

    /** A fresh data directory, the server started on it and the service's database created. */
    void install() throws Exception {
        Files.createDirectories(dir);
        List<String> command = new ArrayList<>(List.of(binary("mariadb-install-db", "/usr/bin/mariadb-install-db"),
                "--no-defaults", "--datadir=" + dir.resolve("data"), "--auth-root-authentication-method=normal",
                "--skip-test-db"));
        if (isRoot()) {
            command.add("--user=root");
        }
        Process install = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(dir.resolve("install.log").toFile()).start();
        if (!install.waitFor(120, TimeUnit.SECONDS) || install.exitValue() != 0) {
            throw new IllegalStateException("mariadb-install-db failed, see " + dir.resolve("install.log"));
        }
        start();
        try (Connection connection = DriverManager.getConnection("jdbc:mariadb://127.0.0.1:" + port + "/", "root", "");
             Statement statement = connection.createStatement()) {
            statement.execute("CREATE DATABASE " + DATABASE + " CHARACTER SET utf8mb4 COLLATE utf8mb4_bin");
        }
    }

    /** Starts the server on its data directory (after a kill, InnoDB recovers it) and waits until it takes logins. */
    void start() throws Exception {
        List<String> command = new ArrayList<>(List.of(binary("mariadbd", "/usr/sbin/mariadbd"), "--no-defaults",
                "--datadir=" + dir.resolve("data"), "--port=" + port, "--bind-address=127.0.0.1",
                "--socket=" + dir.resolve("mariadb.sock"), "--pid-file=" + dir.resolve("mariadb.pid"),
                "--log-error=" + dir.resolve("error.log"), "--skip-grant-tables", "--skip-name-resolve",
                "--innodb-buffer-pool-size=" + bufferPool, "--max-connections=400"));
        if (isRoot()) {
            command.add("--user=root");
        }
        process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(dir.resolve("stdout.log").toFile()).start();
        Instant deadline = Instant.now().plus(Duration.ofSeconds(60));
        while (Instant.now().isBefore(deadline)) {
            if (!process.isAlive()) {
                throw new IllegalStateException("mariadbd exited with " + process.exitValue() + ", see " + dir.resolve("error.log"));
            }
            try (Connection ignored = DriverManager.getConnection("jdbc:mariadb://127.0.0.1:" + port + "/", "root", "")) {
                return;
            } catch (SQLException notYet) {
                Thread.sleep(200);
            }
        }
        throw new IllegalStateException("mariadbd did not take logins within 60 s");
    }

    /** SIGKILL: no shutdown, no flush beyond what each commit already made durable. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    Connection connect() throws SQLException {
        return DriverManager.getConnection(jdbcUrl(), "root", "");
    }

    @Override
    public void close() throws InterruptedException {
        if (process != null && process.isAlive()) {
            process.destroy();
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                kill();
            }
        }
    }

    private static String binary(String name, String debianPath) {
        return Files.isExecutable(Path.of(debianPath)) ? debianPath : name;
    }

    private static boolean isRoot() {
        return "root".equals(System.getProperty("user.name"));
    }

    static void deleteRecursively(Path path) throws IOException {
        if (!Files.exists(path)) {
            return;
        }
        try (var paths = Files.walk(path)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
