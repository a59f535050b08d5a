package io.paycallback.bench;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A downstream destination for deploy/bench/run.sh: by default accepts every event with 200 and a short JSON body, so
 * the drain measures real HTTP deliveries and their recorded attempts instead of the built-in log destination. The
 * isolation phase also runs it as the destination beside the healthy one, which it breaks while the service runs:
 * {@code POST /mode} with {@code silent} reads each event and never answers (the connection stays open until the
 * service gives up), {@code slow-500} answers 500 five seconds later, {@code ok} answers again. Listens on loopback;
 * prints its port on the first line of stdout; {@code GET /requests} answers how many events it has read.
 * <pre>
 *   DownstreamSink [PORT [ok|silent|slow-500]]     PORT 0 or absent picks a free port
 * </pre>
 */
public final class DownstreamSink {

    private static final byte[] ANSWER = "{\"received\":true}".getBytes(StandardCharsets.UTF_8);
    private static final AtomicLong REQUESTS = new AtomicLong();
    private static final AtomicReference<Mode> MODE = new AtomicReference<>(Mode.OK);

    private DownstreamSink() {
    }

    private enum Mode {
        OK, SILENT, SLOW_500;

        static Mode of(String name) {
            return valueOf(name.trim().toUpperCase(Locale.ROOT).replace('-', '_'));
        }
    }

    public static void main(String[] args) throws IOException {
        // Without TCP_NODELAY the JDK server's small answers wait for the client's delayed ACK: ~40 ms per event.
        System.setProperty("sun.net.httpserver.nodelay", "true");
        int port = args.length > 0 ? Integer.parseInt(args[0]) : 0;
        if (args.length > 1) {
            MODE.set(Mode.of(args[1]));
        }
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 256);
        server.setExecutor(Executors.newFixedThreadPool(4));
        ScheduledExecutorService later = Executors.newSingleThreadScheduledExecutor();
        server.createContext("/requests", exchange -> answer(exchange, 200,
                Long.toString(REQUESTS.get()).getBytes(StandardCharsets.UTF_8)));
        server.createContext("/mode", exchange -> {
            try (InputStream in = exchange.getRequestBody()) {
                MODE.set(Mode.of(new String(in.readAllBytes(), StandardCharsets.UTF_8)));
            }
            answer(exchange, 200, new byte[0]);
        });
        server.createContext("/", exchange -> {
            try (InputStream in = exchange.getRequestBody()) {
                in.readAllBytes();
            }
            REQUESTS.incrementAndGet();
            switch (MODE.get()) {
                case OK -> answer(exchange, 200, ANSWER);
                // Returning without an answer leaves the exchange open: the client waits for its own timeout.
                case SILENT -> { }
                case SLOW_500 -> later.schedule(() -> answer(exchange, 500, new byte[0]), 5, TimeUnit.SECONDS);
            }
        });
        server.start();
        System.out.println(server.getAddress().getPort());
        System.out.flush();
    }

    private static void answer(HttpExchange exchange, int status, byte[] body) {
        try {
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
            if (body.length > 0) {
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(body);
                }
            }
            exchange.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
