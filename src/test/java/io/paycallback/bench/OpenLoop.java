package io.paycallback.bench;

import org.HdrHistogram.Histogram;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * An open-loop load: the pre-signed requests of a {@link RequestGenerator} file, each sent once, at a fixed arrival
 * rate whatever the service's answers do (wrk2's model). Request i is due at start + i / rate; a connection that is
 * free takes the next due request, waits for its time and sends it; each latency is measured from when the request was
 * due, not from when a connection got to it, so a service that falls behind is charged the queueing its slowness
 * causes (no coordinated omission). Prints one line:
 * {@code RESULT rate=<asked> achieved=<sent/s> sent= ok200= non200= errors= p50= p90= p99= p999= max=} (latencies ms).
 *
 * <pre>java -cp ... io.paycallback.bench.OpenLoop HOST:PORT FILE RATE SECONDS CONNECTIONS</pre>
 */
public final class OpenLoop {

    private OpenLoop() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 5) {
            System.err.println("usage: HOST:PORT FILE RATE SECONDS CONNECTIONS");
            System.exit(2);
        }
        String[] hostPort = args[0].split(":");
        InetSocketAddress address = new InetSocketAddress(hostPort[0], Integer.parseInt(hostPort[1]));
        List<byte[]> requests = read(Path.of(args[1]));
        double rate = Double.parseDouble(args[2]);
        int total = (int) Math.min(requests.size(), Math.round(rate * Double.parseDouble(args[3])));
        int connections = Integer.parseInt(args[4]);
        long interval = Math.round(1e9 / rate);

        AtomicInteger next = new AtomicInteger();
        AtomicLong ok = new AtomicLong();
        AtomicLong other = new AtomicLong();
        AtomicLong errors = new AtomicLong();
        List<Histogram> histograms = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(200);
        for (int c = 0; c < connections; c++) {
            Histogram histogram = new Histogram(TimeUnit.SECONDS.toMicros(60), 3);
            histograms.add(histogram);
            Thread thread = new Thread(() -> {
                Connection connection = null;
                for (int i = next.getAndIncrement(); i < total; i = next.getAndIncrement()) {
                    long due = start + i * interval;
                    for (long wait = due - System.nanoTime(); wait > 0; wait = due - System.nanoTime()) {
                        LockSupport.parkNanos(wait);
                    }
                    try {
                        if (connection == null) {
                            connection = new Connection(address);
                        }
                        int status = connection.exchange(requests.get(i));
                        (status == 200 ? ok : other).incrementAndGet();
                    } catch (IOException failure) {
                        errors.incrementAndGet();
                        if (connection != null) {
                            connection.close();
                        }
                        connection = null;
                    }
                    histogram.recordValue(Math.min(histogram.getHighestTrackableValue(),
                            TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - due)));
                }
                if (connection != null) {
                    connection.close();
                }
            }, "open-loop-" + c);
            thread.start();
            threads.add(thread);
        }
        for (Thread thread : threads) {
            thread.join();
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        Histogram all = new Histogram(TimeUnit.SECONDS.toMicros(60), 3);
        histograms.forEach(all::add);
        System.out.printf(Locale.ROOT, "RESULT rate=%.0f achieved=%.0f sent=%d ok200=%d non200=%d errors=%d p50=%.2f p90=%.2f"
                        + " p99=%.2f p999=%.2f max=%.2f%n", rate, total / seconds, total, ok.get(), other.get(), errors.get(),
                millis(all, 50), millis(all, 90), millis(all, 99), millis(all, 99.9), all.getMaxValue() / 1000.0);
    }

    private static double millis(Histogram histogram, double percentile) {
        return histogram.getValueAtPercentile(percentile) / 1000.0;
    }

    private static List<byte[]> read(Path file) throws IOException {
        List<byte[]> requests = new ArrayList<>();
        try (DataInputStream in = new DataInputStream(new BufferedInputStream(Files.newInputStream(file), 1 << 20))) {
            for (String length = line(in); length != null; length = line(in)) {
                byte[] request = new byte[Integer.parseInt(length)];
                in.readFully(request);
                requests.add(request);
            }
        }
        return requests;
    }

    /** A line up to "\n" (or "\r\n"); null at the end of the stream. */
    private static String line(InputStream in) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        for (int b = in.read(); b != '\n'; b = in.read()) {
            if (b < 0) {
                return bytes.size() == 0 ? null : bytes.toString(StandardCharsets.US_ASCII);
            }
            if (b != '\r') {
                bytes.write(b);
            }
        }
        return bytes.toString(StandardCharsets.US_ASCII);
    }

    /** One keep-alive HTTP/1.1 connection: a request, then its whole answer. */
    private static final class Connection {
        private final Socket socket;
        private final OutputStream out;
        private final InputStream in;

        Connection(InetSocketAddress address) throws IOException {
            socket = new Socket();
            socket.setTcpNoDelay(true);
            socket.connect(address, 2_000);
            socket.setSoTimeout(30_000);
            out = socket.getOutputStream();
            in = new BufferedInputStream(socket.getInputStream());
        }

        int exchange(byte[] request) throws IOException {
            out.write(request);
            out.flush();
            String statusLine = line(in);
            if (statusLine == null) {
                throw new IOException("connection closed before an answer");
            }
            int status = Integer.parseInt(statusLine.split(" ")[1]);
            long length = 0;
            boolean chunked = false;
            for (String header = line(in); header != null && !header.isEmpty(); header = line(in)) {
                String lower = header.toLowerCase(Locale.ROOT);
                if (lower.startsWith("content-length:")) {
                    length = Long.parseLong(lower.substring(15).trim());
                } else if (lower.startsWith("transfer-encoding:") && lower.contains("chunked")) {
                    chunked = true;
                }
            }
            if (chunked) {
                for (long size = Long.parseLong(line(in).trim(), 16); size > 0; size = Long.parseLong(line(in).trim(), 16)) {
                    skip(size + 2);
                }
                line(in);
            } else {
                skip(length);
            }
            return status;
        }

        private void skip(long bytes) throws IOException {
            for (long left = bytes; left > 0; ) {
                long skipped = in.skip(left);
                if (skipped <= 0) {
                    if (in.read() < 0) {
                        throw new IOException("connection closed in an answer");
                    }
                    skipped = 1;
                }
                left -= skipped;
            }
        }

        void close() {
            try {
                socket.close();
            } catch (IOException ignored) {
                // Closing a connection that failed: nothing left to do with it.
            }
        }
    }
}
