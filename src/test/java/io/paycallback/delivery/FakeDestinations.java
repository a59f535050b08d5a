package io.paycallback.delivery;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.paycallback.testsupport.EventSinkResource;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;

/**
 * Downstream services on loopback, one path per destination, each answering what the test tells it (a status, a
 * Retry-After, or nothing at all), and verifying every delivery's Standard Webhooks signature with each secret it
 * knows, the way a receiver does ({@link WebhookVerifier}). Tests steer it and read what it received over HTTP
 * ({@link FakeDestinationsClient}), since this class lives in another class loader than the tests.
 */
public class FakeDestinations implements QuarkusTestResourceLifecycleManager {

    static final String HOOKS_SECRET = WebhookSignerTest.secret(32, 11);
    static final String HOOKS_PREVIOUS_SECRET = WebhookSignerTest.secret(24, 12);
    static final String GONE_SECRET = WebhookSignerTest.secret(48, 13);
    /**
     * Every destination of the suite, each subscribed to order.paid ({@code hooks} to alerts too) but {@code limited},
     * at most two events a second, subscribed to refund.failed only, which the suite never emits.
     */
    static final List<String> NAMES = List.of("hooks", "gone", "slow", "flaky", "dead", "limited");

    private HttpServer server;
    private final Map<String, Behaviour> behaviours = new ConcurrentHashMap<>();
    private final List<String> received = new CopyOnWriteArrayList<>();
    private final Map<String, List<String>> secrets = Map.of("hooks", List.of(HOOKS_SECRET, HOOKS_PREVIOUS_SECRET),
            "gone", List.of(GONE_SECRET));

    /** What one destination answers from now on: a status, with a Retry-After when not null; silent never answers. */
    private record Behaviour(int status, String retryAfter, boolean silent) {
        static final Behaviour OK = new Behaviour(200, null, false);
    }

    @Override
    public Map<String, String> start() {
        try {
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        server.setExecutor(Executors.newCachedThreadPool());
        server.createContext("/to/", this::event);
        server.createContext("/control/", this::control);
        server.start();
        String base = "http://127.0.0.1:" + server.getAddress().getPort();
        Map<String, String> config = new HashMap<>();
        String prefix = "paycallback.downstream.destinations.";
        for (String name : NAMES) {
            config.put(prefix + name + ".url", base + "/to/" + name);
            config.put(prefix + name + ".events", switch (name) {
                case "hooks" -> "order.paid,alert";
                case "limited" -> "refund.failed";
                default -> "order.paid";
            });
        }
        config.put(prefix + "hooks.signing-secret", HOOKS_SECRET);
        config.put(prefix + "hooks.previous-signing-secret", HOOKS_PREVIOUS_SECRET);
        config.put(prefix + "hooks.previous-signing-secret-expires-at", "2099-01-01T00:00:00Z");
        config.put(prefix + "gone.signing-secret", GONE_SECRET);
        config.put(prefix + "dead.timeout", "3s");
        config.put(prefix + "limited.rate-limit", "2");
        config.put("test.destinations.base-url", base);
        return config;
    }

    /**
     * One line per delivery, tab-separated: destination, Idempotency-Key, webhook-id, webhook-timestamp, how many
     * signatures it carried, which of the destination's secrets verified it ({@code 0,1}: the first and the second;
     * {@code -} none), the status answered ({@code -} for none).
     */
    private void event(HttpExchange exchange) throws IOException {
        String name = exchange.getRequestURI().getPath().substring("/to/".length());
        byte[] body;
        try (InputStream in = exchange.getRequestBody()) {
            body = in.readAllBytes();
        }
        String id = exchange.getRequestHeaders().getFirst("webhook-id");
        String timestamp = exchange.getRequestHeaders().getFirst("webhook-timestamp");
        String signature = exchange.getRequestHeaders().getFirst("webhook-signature");
        StringBuilder verified = new StringBuilder();
        List<String> known = secrets.getOrDefault(name, List.of());
        for (int i = 0; i < known.size(); i++) {
            try {
                if (new WebhookVerifier(known.get(i)).verify(id, timestamp, signature, body, Instant.now().getEpochSecond())) {
                    verified.append(verified.length() == 0 ? "" : ",").append(i);
                }
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException(e);
            }
        }
        Behaviour behaviour = behaviours.getOrDefault(name, Behaviour.OK);
        received.add(String.join("\t", name, exchange.getRequestHeaders().getFirst("Idempotency-Key"), String.valueOf(id),
                String.valueOf(timestamp), signature == null ? "0" : Integer.toString(signature.split(" ").length),
                verified.length() == 0 ? "-" : verified.toString(),
                behaviour.silent() ? "-" : Integer.toString(behaviour.status()), Long.toString(System.currentTimeMillis())));
        if (behaviour.silent()) {
            // No answer: the exchange stays open until the service's timeout closes the connection.
            return;
        }
        if (behaviour.retryAfter() != null) {
            exchange.getResponseHeaders().add("Retry-After", behaviour.retryAfter());
        }
        EventSinkResource.respond(exchange, behaviour.status(), "");
    }

    /**
     * {@code POST /control/<name>?status=503&retryAfter=120} or {@code ?silent=true}; {@code POST /control/reset};
     * {@code GET /control/received}.
     */
    private void control(HttpExchange exchange) throws IOException {
        String what = exchange.getRequestURI().getPath().substring("/control/".length());
        if (what.equals("received")) {
            EventSinkResource.respond(exchange, 200, String.join("\n", received));
            return;
        }
        if (what.equals("reset")) {
            behaviours.clear();
            received.clear();
            EventSinkResource.respond(exchange, 200, "");
            return;
        }
        Map<String, String> query = query(exchange.getRequestURI());
        behaviours.put(what, new Behaviour(Integer.parseInt(query.getOrDefault("status", "200")), query.get("retryAfter"),
                Boolean.parseBoolean(query.getOrDefault("silent", "false"))));
        EventSinkResource.respond(exchange, 200, "");
    }

    private static Map<String, String> query(URI uri) {
        Map<String, String> values = new HashMap<>();
        if (uri.getRawQuery() != null) {
            for (String pair : uri.getRawQuery().split("&")) {
                String[] parts = pair.split("=", 2);
                values.put(parts[0], parts.length > 1 ? java.net.URLDecoder.decode(parts[1], StandardCharsets.UTF_8) : "");
            }
        }
        return values;
    }

    @Override
    public void stop() {
        if (server != null) {
            server.stop(0);
        }
    }
}
