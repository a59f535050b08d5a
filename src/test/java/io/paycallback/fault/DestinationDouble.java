package io.paycallback.fault;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.paycallback.delivery.WebhookVerifier;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.security.GeneralSecurityException;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A downstream service of the isolation scenario: answers 204, or while silent reads each event and never answers
 * (the connection stays open until the service gives up). Verifies every delivery's signature with its secret, as a
 * receiver does, and counts per Idempotency-Key the deliveries it accepted and the order each was about.
 */
final class DestinationDouble implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpServer server;
    private final WebhookVerifier verifier;
    private final AtomicBoolean silent = new AtomicBoolean();
    private final AtomicInteger requests = new AtomicInteger();
    private final AtomicInteger unverified = new AtomicInteger();
    private final Map<String, AtomicInteger> accepted = new ConcurrentHashMap<>();
    private final Map<String, String> orders = new ConcurrentHashMap<>();

    DestinationDouble(int port, String secret) throws IOException {
        this.verifier = new WebhookVerifier(secret);
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 0);
        server.setExecutor(Executors.newCachedThreadPool());
        server.createContext("/events", this::event);
        server.start();
    }

    String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/events";
    }

    void silent(boolean never) {
        silent.set(never);
    }

    int requests() {
        return requests.get();
    }

    int unverified() {
        return unverified.get();
    }

    /** Idempotency-Key to how many times it was accepted. */
    Map<String, Integer> accepted() {
        Map<String, Integer> counts = new ConcurrentHashMap<>();
        accepted.forEach((key, count) -> counts.put(key, count.get()));
        return counts;
    }

    /** Idempotency-Key to the order it was about, for every accepted delivery. */
    Map<String, String> orders() {
        return Map.copyOf(orders);
    }

    private void event(HttpExchange exchange) throws IOException {
        byte[] body;
        try (InputStream in = exchange.getRequestBody()) {
            body = in.readAllBytes();
        }
        requests.incrementAndGet();
        try {
            if (!verifier.verify(exchange.getRequestHeaders().getFirst("webhook-id"),
                    exchange.getRequestHeaders().getFirst("webhook-timestamp"),
                    exchange.getRequestHeaders().getFirst("webhook-signature"), body, Instant.now().getEpochSecond())) {
                unverified.incrementAndGet();
            }
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
        if (silent.get()) {
            return;
        }
        String key = exchange.getRequestHeaders().getFirst("Idempotency-Key");
        JsonNode event = JSON.readTree(body);
        orders.put(key, event.path("outTradeNo").asText());
        accepted.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
        exchange.sendResponseHeaders(204, -1);
        exchange.close();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
