package io.paycallback.fault;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The downstream receiver: answers 503 to every fifth request, as a flaky service would, and records each delivery it
 * accepted by its Idempotency-Key and the order it names. A delay makes deliveries slow, so leases are held long enough
 * for a kill to find them; while down it answers 503 (or the status of the outage) to every request, as a destination
 * in an outage.
 */
final class FailingSink implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpServer server;
    private final AtomicInteger requests = new AtomicInteger();
    private final AtomicInteger refused = new AtomicInteger();
    private final AtomicLong delayMillis = new AtomicLong();
    /** The status every request is answered while down; 0 while up. */
    private final AtomicInteger outage = new AtomicInteger();
    /** Idempotency-Key to the order it was about, for every delivery answered 2xx (repeats included once). */
    private final Map<String, String> delivered = new ConcurrentHashMap<>();

    FailingSink(int port) throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 0);
        server.setExecutor(Executors.newFixedThreadPool(16));
        server.createContext("/events", this::event);
        server.start();
    }

    String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/events";
    }

    void delay(long millis) {
        delayMillis.set(millis);
    }

    void down(boolean outage) {
        outage(outage ? 503 : 0);
    }

    /** Every request answered {@code status} from now on, as a destination failing on its own; 0 ends the outage. */
    void outage(int status) {
        outage.set(status);
    }

    int requests() {
        return requests.get();
    }

    int refused() {
        return refused.get();
    }

    /** The line of a tier's figures. */
    String figure() {
        return "sink: " + requests() + " deliveries, " + refused() + " of them answered 503";
    }

    Map<String, String> delivered() {
        return Map.copyOf(delivered);
    }

    private void event(HttpExchange exchange) throws IOException {
        byte[] body;
        try (InputStream in = exchange.getRequestBody()) {
            body = in.readAllBytes();
        }
        try {
            Thread.sleep(delayMillis.get());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        int outageStatus = outage.get();
        if (requests.incrementAndGet() % 5 == 0 || outageStatus != 0) {
            refused.incrementAndGet();
            exchange.sendResponseHeaders(outageStatus != 0 ? outageStatus : 503, -1);
        } else {
            JsonNode event = JSON.readTree(body);
            if ("order.paid".equals(event.path("type").asText())) {
                delivered.put(exchange.getRequestHeaders().getFirst("Idempotency-Key"), event.path("outTradeNo").asText());
            }
            exchange.sendResponseHeaders(204, -1);
        }
        exchange.close();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
