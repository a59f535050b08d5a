package io.paycallback.testsupport;

import org.junit.jupiter.api.Assumptions;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real Apache Kafka broker for the tests: one per test JVM, started on first use by deploy/kafka/start.sh (KRaft, one
 * node, loopback, no authentication) with an empty storage in a directory of its own (target/kafka-test, never a
 * person's target/kafka), and stopped when the JVM exits. Fault tests kill it ({@link #kill9()}) and bring it back on the
 * same port with the same data ({@link #restart()}).
 *
 * <p>Where the broker cannot start (no network for the first fetch of its jars, say) the tests that ask for it are
 * skipped, naming the reason; with {@code -Dkafka.required=true} (.ci/run sets it) that is a failure instead.
 */
public final class KafkaBroker {

    private static final Path SCRIPT = Path.of("deploy/kafka/start.sh");
    private static final Path DIR = Path.of("target/kafka-test");
    /** The first fetch of the jars through Maven is most of it; a start alone takes seconds. */
    private static final Duration START_TIMEOUT = Duration.ofSeconds(300);

    private static KafkaBroker shared;
    private static String failure;

    private final int port;
    private final int controllerPort;
    private final String bootstrapServers;

    private KafkaBroker(int port, int controllerPort) {
        this.port = port;
        this.controllerPort = controllerPort;
        this.bootstrapServers = "127.0.0.1:" + port;
    }

    /**
     * The test JVM's broker, started on the first call. When it cannot start, aborts the calling test as skipped, or
     * fails it under {@code -Dkafka.required=true}.
     */
    public static synchronized KafkaBroker shared() {
        if (shared == null && failure == null) {
            KafkaBroker broker = new KafkaBroker(FreePorts.next(), FreePorts.next());
            failure = broker.run(START_TIMEOUT, "fresh", Integer.toString(broker.port), Integer.toString(broker.controllerPort));
            if (failure == null) {
                shared = broker;
                Runtime.getRuntime().addShutdownHook(new Thread(broker::stop));
            }
        }
        if (failure != null) {
            if (Boolean.getBoolean("kafka.required")) {
                throw new IllegalStateException("Kafka is required (-Dkafka.required=true) but did not start: " + failure);
            }
            Assumptions.abort("no Kafka broker: " + failure);
        }
        return shared;
    }

    /** {@code 127.0.0.1:<port>}, for bootstrap.servers. */
    public String bootstrapServers() {
        return bootstrapServers;
    }

    /**
     * SIGKILL to the broker, as a crash or an OOM kill: no controlled shutdown, no flush. Returns once its port refuses
     * connections.
     */
    public void kill9() {
        ProcessHandle.of(pid()).ifPresent(ProcessHandle::destroyForcibly);
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (accepts()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the broker still accepts connections 10 s after SIGKILL");
            }
            sleep(50);
        }
    }

    /**
     * Starts the broker again on the same ports and data, after {@link #kill9()} or {@link #stop()}, and returns once it
     * answers a metadata request; when it is running, stops it cleanly first. After a kill the broker waits out its
     * own stale registration (3 s, deploy/kafka/start.sh), so this takes 5-10 s.
     */
    public void restart() {
        stop();
        String failed = run(Duration.ofSeconds(120), Integer.toString(port), Integer.toString(controllerPort));
        if (failed != null) {
            throw new IllegalStateException("the broker did not restart: " + failed);
        }
    }

    /** A controlled shutdown (SIGTERM); the data stays for {@link #restart()}. */
    public void stop() {
        run(Duration.ofSeconds(60), "stop");
    }

    private long pid() {
        try {
            return Long.parseLong(Files.readString(DIR.resolve("kafka.pid")).strip());
        } catch (IOException e) {
            throw new UncheckedIOException("no pid file for the broker in " + DIR, e);
        }
    }

    private boolean accepts() {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 500);
            return true;
        } catch (IOException refused) {
            return false;
        }
    }

    /** Runs the script with this broker's directory; null when it succeeded, else why not. */
    private String run(Duration timeout, String... arguments) {
        List<String> command = new ArrayList<>(List.of("bash", SCRIPT.toString()));
        command.addAll(List.of(arguments));
        ProcessBuilder builder = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT);
        builder.environment().put("KAFKA_DIR", DIR.toAbsolutePath().toString());
        try {
            Process process = builder.start();
            if (!process.waitFor(timeout.toSeconds(), TimeUnit.SECONDS)) {
                process.destroyForcibly();
                return SCRIPT + " " + String.join(" ", arguments) + " did not finish within " + timeout.toSeconds() + " s";
            }
            String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (process.exitValue() != 0) {
                return SCRIPT + " " + String.join(" ", arguments) + " exited with " + process.exitValue()
                        + " (its messages are above)";
            }
            if (!"stop".equals(arguments[0]) && !out.strip().endsWith(bootstrapServers)) {
                return SCRIPT + " printed " + out.strip() + " rather than " + bootstrapServers;
            }
            return null;
        } catch (IOException e) {
            return SCRIPT + " could not run: " + e.getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted while " + SCRIPT + " ran";
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
