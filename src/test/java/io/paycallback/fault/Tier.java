package io.paycallback.fault;

import io.paycallback.testsupport.FreePorts;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * How every tier on servers of its own begins and ends: a fresh {@code mariadbd} in a clean directory, instances started
 * in turn; load sent in the background beside a fault; at the end everything closed, whatever failed to start, and
 * the tier's figures written to its file and to the build's output.
 */
final class Tier {

    private Tier() {
    }

    /**
     * What an earlier run left in {@code dir} is deleted first: every run starts from an empty database. A buffer pool of
     * 64 MB holds what a tier of minutes writes.
     */
    static MariaDbServer freshDatabase(Path dir) throws Exception {
        return freshDatabase(dir, "64M");
    }

    static MariaDbServer freshDatabase(Path dir, String bufferPool) throws Exception {
        MariaDbServer.deleteRecursively(dir);
        MariaDbServer database = new MariaDbServer(dir.resolve("db"), FreePorts.next(), bufferPool);
        database.install();
        return database;
    }

    /** One after the other, each ready before the next starts, as a rollout's first pods do. */
    static void startInTurn(Duration readyWithin, ServiceInstance... instances) throws IOException, InterruptedException {
        for (ServiceInstance instance : instances) {
            instance.start();
            instance.awaitReady(readyWithin);
        }
    }

    /** Skips what was never made (a start that failed half way). */
    static void closeAll(AutoCloseable... closeables) throws Exception {
        for (AutoCloseable closeable : closeables) {
            if (closeable != null) {
                closeable.close();
            }
        }
    }

    static void writeFigures(Path file, List<String> figures) throws IOException {
        Files.createDirectories(file.getParent());
        Files.write(file, figures, StandardCharsets.UTF_8);
        figures.forEach(System.out::println);
    }

    interface Step {
        void run() throws Exception;
    }

    /** Load sent beside a scenario's fault; a failure of the step fails the future. */
    static CompletableFuture<Void> background(Step step) {
        return CompletableFuture.runAsync(() -> {
            try {
                step.run();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
    }
}
