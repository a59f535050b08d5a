package io.paycallback.testsupport;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A downstream receiver on loopback, subscribed to every event type. Tests steer it and read what it received over
 * HTTP ({@link EventSink}), since this class lives in another class loader than the tests.
 */
public class EventSinkResource implements QuarkusTestResourceLifecycleManager {

    private HttpServer server;
    private final List<String> received = new CopyOnWriteArrayList<>();
    /** The traceparent header of each accepted delivery that carried one, after its Idempotency-Key. */
    private final List<String> traceparents = new CopyOnWriteArrayList<>();
    private final AtomicInteger answer = new AtomicInteger(200);
    private final AtomicReference<String> answerBody = new AtomicReference<>("");
    private final AtomicLong delayMillis = new AtomicLong();

    @Override
    public Map<String, String> start() {
        try {
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        server.setExecutor(Executors.newFixedThreadPool(8));
        server.createContext("/events", this::event);
        server.createContext("/received", exchange -> respond(exchange, 200, String.join("\n", received)));
        server.createContext("/traceparents", exchange -> respond(exchange, 200, String.join("\n", traceparents)));
        server.createContext("/answer", exchange -> {
            answer.set(Integer.parseInt(new String(read(exchange), StandardCharsets.UTF_8).trim()));
            respond(exchange, 200, "");
        });
        server.createContext("/answer-body", exchange -> {
            answerBody.set(new String(read(exchange), StandardCharsets.UTF_8));
            respond(exchange, 200, "");
        });
        server.createContext("/delay", exchange -> {
            delayMillis.set(Long.parseLong(new String(read(exchange), StandardCharsets.UTF_8).trim()));
            respond(exchange, 200, "");
        });
        server.createContext("/reset", exchange -> {
            received.clear();
            traceparents.clear();
            answer.set(200);
            answerBody.set("");
            delayMillis.set(0);
            respond(exchange, 200, "");
        });
        server.start();
        String base = "http://127.0.0.1:" + server.getAddress().getPort();
        return Map.of(
                "paycallback.downstream.destinations.sink.url", base + "/events",
                "paycallback.downstream.destinations.sink.events",
                "order.paid,refund.requested,refund.succeeded,refund.failed,alert",
                "paycallback.downstream.destinations.sink.timeout", "2s",
                "test.sink.base-url", base);
    }

    private void event(HttpExchange exchange) throws IOException {
        byte[] body = read(exchange);
        long delay = delayMillis.get();
        if (delay > 0) {
            try {
                Thread.sleep(delay);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        int status = answer.get();
        if (status / 100 == 2) {
            // One line per delivery: the key, then the event type taken from the JSON body.
            String json = new String(body, StandardCharsets.UTF_8);
            int typeAt = json.indexOf("\"type\":\"") + 8;
            String key = exchange.getRequestHeaders().getFirst("Idempotency-Key");
            received.add(key + " " + json.substring(typeAt, json.indexOf('"', typeAt)));
            String traceparent = exchange.getRequestHeaders().getFirst("traceparent");
            if (traceparent != null) {
                traceparents.add(key + " " + traceparent);
            }
        }
        respond(exchange, status, answerBody.get());
    }

    private static byte[] read(HttpExchange exchange) throws IOException {
        try (InputStream in = exchange.getRequestBody()) {
            return in.readAllBytes();
        }
    }

    /** A plain-text answer; an empty body is sent without one. */
    public static void respond(HttpExchange exchange, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
        if (bytes.length > 0) {
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        }
        exchange.close();
    }

    @Override
    public void stop() {
        if (server != null) {
            server.stop(0);
        }
    }
}
