import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

/**
 * A downstream destination to try the service with: answers every POST with 200 and prints one line per event it is
 * sent, its Idempotency-Key and its JSON body. Point a destination at it
 * ({@code paycallback.downstream.destinations.<name>.url=http://127.0.0.1:8090/events}).
 *
 * <pre>java deploy/dev/ReceiveEvents.java [PORT]      8090 by default; listens on loopback only</pre>
 *
 * A single-file program (Java 11+ runs it from source), like SendSample: no build, no dependency.
 */
public final class ReceiveEvents {

    private static final byte[] ANSWER = "{\"received\":true}".getBytes(StandardCharsets.UTF_8);

    private ReceiveEvents() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length > 1 || (args.length == 1 && !args[0].matches("[0-9]{1,5}"))) {
            System.err.println("usage: java deploy/dev/ReceiveEvents.java [PORT]");
            System.exit(2);
        }
        int port = args.length == 1 ? Integer.parseInt(args[0]) : 8090;
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 64);
        server.createContext("/", ReceiveEvents::receive);
        server.start();
        System.out.println("receiving events on http://127.0.0.1:" + server.getAddress().getPort() + "/");
        System.out.flush();
    }

    private static void receive(HttpExchange exchange) throws IOException {
        byte[] body;
        try (InputStream in = exchange.getRequestBody()) {
            body = in.readAllBytes();
        }
        if (!exchange.getRequestMethod().equals("POST")) {
            exchange.sendResponseHeaders(405, -1);
            exchange.close();
            return;
        }
        synchronized (ReceiveEvents.class) {
            System.out.println(exchange.getRequestHeaders().getFirst("Idempotency-Key") + " "
                    + new String(body, StandardCharsets.UTF_8));
            System.out.flush();
        }
        exchange.getResponseHeaders().add("Content-Type", "application/json");
        exchange.sendResponseHeaders(200, ANSWER.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(ANSWER);
        }
    }
}
