package io.paycallback.bench;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;

/**
 * A downstream destination for deploy/bench/run.sh ({@code SINK=1}): accepts every event with 200 and a short JSON
 * body, so the drain measures real HTTP deliveries and their recorded attempts instead of the built-in log
 * destination. Listens on loopback; prints its port on the first line of stdout.
 * <pre>
 *   DownstreamSink [PORT]     0 or absent picks a free port
 * </pre>
 */
public final class DownstreamSink {

    private static final byte[] ANSWER = "{\"received\":true}".getBytes(StandardCharsets.UTF_8);

    private DownstreamSink() {
    }

    public static void main(String[] args) throws IOException {
        // Without TCP_NODELAY the JDK server's small answers wait for the client's delayed ACK: ~40 ms per event.
        System.setProperty("sun.net.httpserver.nodelay", "true");
        int port = args.length > 0 ? Integer.parseInt(args[0]) : 0;
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 256);
        server.setExecutor(Executors.newFixedThreadPool(4));
        server.createContext("/", DownstreamSink::accept);
        server.start();
        System.out.println(server.getAddress().getPort());
        System.out.flush();
    }

    private static void accept(HttpExchange exchange) throws IOException {
        try (InputStream in = exchange.getRequestBody()) {
            in.readAllBytes();
        }
        exchange.getResponseHeaders().add("Content-Type", "application/json");
        exchange.sendResponseHeaders(200, ANSWER.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(ANSWER);
        }
    }
}
