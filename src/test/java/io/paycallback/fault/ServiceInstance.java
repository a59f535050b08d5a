package io.paycallback.fault;

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
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * One process of the packaged service ({@code target/quarkus-app/quarkus-run.jar}) in a JVM of its own, configured by a
 * {@code config/application.properties} in its own working directory, so no key or password is on a command line.
 */
final class ServiceInstance implements AutoCloseable {

    private static final Path RUNNER = Path.of("target", "quarkus-app", "quarkus-run.jar").toAbsolutePath();
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private final String name;
    private final Path dir;
    private final int httpPort;
    private final int managementPort;
    private final Map<String, String> config;
    private Process process;

    ServiceInstance(String name, Path dir, int httpPort, int managementPort, Map<String, String> config) {
        this.name = name;
        this.dir = dir;
        this.httpPort = httpPort;
        this.managementPort = managementPort;
        this.config = config;
    }

    String name() {
        return name;
    }

    URI base() {
        return URI.create("http://127.0.0.1:" + httpPort);
    }

    void start() throws IOException {
        if (!Files.isRegularFile(RUNNER)) {
            throw new IllegalStateException(RUNNER + " is missing: the fault tier runs on the packaged application");
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
                "-Xmx192m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-jar", RUNNER.toString()))
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
