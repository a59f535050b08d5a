package io.paycallback.fault;

import io.paycallback.testsupport.ProviderKeys;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * One process of the packaged service ({@code target/quarkus-app/quarkus-run.jar}, or another build's runner such as the
 * previous release's) in a JVM of its own, configured by a {@code config/application.properties} in its own working
 * directory, so no key or password is on a command line.
 */
final class ServiceInstance implements AutoCloseable {

    private static final Path RUNNER = Path.of("target", "quarkus-app", "quarkus-run.jar").toAbsolutePath();
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private final String name;
    private final Path runner;
    private final Path dir;
    private final int httpPort;
    private final int managementPort;
    private final Map<String, String> config;
    private Process process;

    ServiceInstance(String name, Path dir, int httpPort, int managementPort, Map<String, String> config) {
        this(name, RUNNER, dir, httpPort, managementPort, config);
    }

    /** An instance of the build whose {@code quarkus-run.jar} is {@code runner}. */
    ServiceInstance(String name, Path runner, Path dir, int httpPort, int managementPort, Map<String, String> config) {
        this.name = name;
        this.runner = runner.toAbsolutePath();
        this.dir = dir;
        this.httpPort = httpPort;
        this.managementPort = managementPort;
        this.config = config;
    }

    /**
     * What every fault tier's instance runs with: the providers' test keys, the datasource at {@code hostPortDatabase},
     * short retry timings so scenarios converge in seconds, the sink as the destination of every event, and the order
     * service's token.
     */
    static Map<String, String> tierConfig(ProviderKeys keys, String hostPortDatabase, String password, FailingSink sink,
                                          String token) {
        Map<String, String> config = tierConfig(keys, hostPortDatabase, password, token);
        config.put("paycallback.downstream.destinations.sink.url", sink.url());
        config.put("paycallback.downstream.destinations.sink.events", "order.paid,refund.requested,refund.succeeded,refund.failed,alert");
        config.put("paycallback.downstream.destinations.sink.timeout", "2s");
        return config;
    }

    /** {@link #tierConfig(ProviderKeys, String, String, FailingSink, String)} without any destination. */
    static Map<String, String> tierConfig(ProviderKeys keys, String hostPortDatabase, String password, String token) {
        Map<String, String> config = new HashMap<>();
        keys.asConfig().forEach((key, value) -> {
            if (key.startsWith("paycallback.")) {
                config.put(key, value);
            }
        });
        config.put("quarkus.datasource.jdbc.url", "jdbc:mariadb://" + hostPortDatabase);
        config.put("quarkus.datasource.reactive.url", "mysql://" + hostPortDatabase);
        config.put("quarkus.datasource.username", "paycallback");
        config.put("quarkus.datasource.password", password);
        // Short enough that the vertx-sql-client#1706 burst, were it back, would land inside the fault tier's proxy scenario.
        config.put("quarkus.datasource.reactive.mysql.connection-timeout", "3");
        config.put("quarkus.log.console.json.enabled", "false");
        config.put("quarkus.shutdown.delay", "2s");
        config.put("quarkus.shutdown.timeout", "10s");
        config.put("paycallback.retry.lease", "5s");
        config.put("paycallback.retry.backoff", "1s,1s,2s,2s,3s,3s,5s,5s");
        config.put("paycallback.downstream.retry.backoff", "1s,1s,2s,2s,3s,3s,5s,5s");
        config.put("paycallback.retry.scan-interval", "1s");
        config.put("paycallback.retry.scan-delay", "1s");
        config.put("paycallback.retry.shutdown-grace", "3s");
        config.put("paycallback.auth.order-service.tokens.tier", token);
        return config;
    }

    String name() {
        return name;
    }

    URI base() {
        return URI.create("http://127.0.0.1:" + httpPort);
    }

    void start() throws IOException {
        if (!Files.isRegularFile(runner)) {
            throw new IllegalStateException(runner + " is missing: the fault tiers run on a packaged application");
        }
        Files.createDirectories(dir.resolve("config"));
        Map<String, String> properties = new TreeMap<>(config);
        properties.put("quarkus.http.port", Integer.toString(httpPort));
        properties.put("quarkus.http.host", "127.0.0.1");
        properties.put("quarkus.management.port", Integer.toString(managementPort));
        properties.put("quarkus.management.host", "127.0.0.1");
        Files.writeString(dir.resolve("config/application.properties"), properties.entrySet().stream()
                .map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining("\n", "", "\n")));
        ProcessBuilder builder = new ProcessBuilder(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx192m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-jar", runner.toString()))
                .directory(dir.toFile())
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("console.log").toFile()));
        // Environment variables outrank the config file: a datasource exported for the other suites must not leak in.
        builder.environment().keySet().removeIf(name -> name.startsWith("QUARKUS_") || name.startsWith("PAYCALLBACK_"));
        process = builder.start();
    }

    void awaitReady(Duration timeout) throws InterruptedException {
        Instant deadline = Instant.now().plus(timeout);
        while (Instant.now().isBefore(deadline)) {
            if (!process.isAlive()) {
                throw new IllegalStateException(name + " exited with " + process.exitValue() + ", see " + dir.resolve("console.log"));
            }
            if (ready()) {
                return;
            }
            Thread.sleep(100);
        }
        throw new IllegalStateException(name + " not ready within " + timeout);
    }

    boolean ready() {
        try {
            HttpResponse<Void> response = HTTP.send(HttpRequest.newBuilder(
                            URI.create("http://127.0.0.1:" + managementPort + "/q/health/ready")).timeout(Duration.ofSeconds(2)).build(),
                    HttpResponse.BodyHandlers.discarding());
            return response.statusCode() == 200;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** The Prometheus scrape of the management port, empty when it cannot be had. */
    String metrics() {
        try {
            return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + managementPort + "/q/metrics"))
                    .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString()).body();
        } catch (IOException e) {
            return "";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "";
        }
    }

    /** Waits for the process to end by itself; its exit code, or empty when it still runs after {@code timeout}. */
    OptionalInt awaitExit(Duration timeout) throws InterruptedException {
        return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)
                ? OptionalInt.of(process.exitValue()) : OptionalInt.empty();
    }

    /** The operating system's id of the running process, for what only {@code /proc} and {@code jcmd} can tell. */
    long pid() {
        return process.pid();
    }

    boolean alive() {
        return process != null && process.isAlive();
    }

    /** SIGKILL: no shutdown hook runs, leases it holds simply stay until they lapse. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    /** SIGTERM, as Kubernetes stops a pod; returns how long the graceful shutdown took. */
    Duration terminate() throws InterruptedException {
        Instant started = Instant.now();
        process.destroy();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            throw new IllegalStateException(name + " did not stop within 60 s of SIGTERM");
        }
        return Duration.between(started, Instant.now());
    }

    String log() throws IOException {
        Path log = dir.resolve("console.log");
        return Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
    }

    @Override
    public void close() throws InterruptedException {
        if (alive()) {
            process.destroy();
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                kill();
            }
        }
    }
}
