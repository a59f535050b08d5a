package io.paycallback.delivery;

import io.paycallback.tracing.SpanAttribute;
import io.paycallback.tracing.Traceparent;
import io.paycallback.tracing.Traced;
import io.vertx.core.tracing.TracingPolicy;
import io.vertx.ext.web.client.WebClientOptions;
import io.vertx.mutiny.core.Vertx;
import io.vertx.mutiny.core.buffer.Buffer;
import io.vertx.mutiny.ext.web.client.HttpRequest;
import io.vertx.mutiny.ext.web.client.HttpResponse;
import io.vertx.mutiny.ext.web.client.WebClient;

import java.time.Clock;
import java.time.Duration;
import java.util.Optional;

/**
 * A try as a {@code POST} of the event's body, with its Idempotency-Key, traceparent and signature headers; any 2xx
 * delivers it. The client's connections belong to the event loop that sends, which also takes the answers.
 */
final class HttpTransport implements Transport {

    /** Idle connections are dropped before the usual servers' idle timeouts (JDK HttpServer 30 s, nginx 75 s). */
    private static final int IDLE_SECONDS = 15;

    private final Destinations.Destination destination;
    private final String url;
    private final WebClient http;
    private final Clock clock;
    private final Duration retryAfterCap;

    HttpTransport(Destinations.Destination destination, Destinations.Http endpoint, Vertx vertx, Clock clock,
                  Duration retryAfterCap) {
        this.destination = destination;
        this.url = endpoint.url();
        this.clock = clock;
        this.retryAfterCap = retryAfterCap;
        this.http = WebClient.create(vertx, new WebClientOptions()
                .setMaxPoolSize(destination.concurrency())
                .setKeepAliveTimeout(IDLE_SECONDS)
                .setConnectTimeout((int) destination.timeout().toMillis())
                .setFollowRedirects(false)
                // Each try is a span of ours that sends its own traceparent.
                .setTracingPolicy(TracingPolicy.IGNORE));
    }

    @Override
    public void send(Outgoing outgoing, Traced span, Ended ended) {
        long started = System.nanoTime();
        span.set(SpanAttribute.HTTP_METHOD, "POST");
        HttpRequest<Buffer> request = http.postAbs(url)
                .putHeader("Content-Type", "application/json")
                .putHeader("Idempotency-Key", outgoing.idempotencyKey())
                .timeout(destination.timeout().toMillis());
        outgoing.traceparent().ifPresent(traceparent -> request.putHeader(Traceparent.HEADER, traceparent.value()));
        outgoing.signed().ifPresent(headers -> request.putHeader(WebhookSigner.ID, headers.id())
                .putHeader(WebhookSigner.TIMESTAMP, Long.toString(headers.timestamp()))
                .putHeader(WebhookSigner.SIGNATURE, headers.signature()));
        request.sendBuffer(Buffer.buffer(outgoing.body())).subscribe().with(
                response -> {
                    DeliveryAttempt attempt = DeliveryAttempt.answered(outgoing.lease(), destination.name(),
                            response.statusCode(), response.body() == null ? null : response.body().getBytes(), started);
                    span.set(SpanAttribute.HTTP_STATUS, response.statusCode());
                    ended.ended(attempt, retryAfter(response));
                },
                failure -> ended.ended(DeliveryAttempt.failed(outgoing.lease(), destination.name(),
                        FailureReason.of(failure, destination.timeout()), started), Optional.empty()));
    }

    private Optional<Duration> retryAfter(HttpResponse<Buffer> response) {
        if (response.statusCode() / 100 == 2) {
            return Optional.empty();
        }
        return RetryAfter.parse(response.getHeader("Retry-After"), clock.instant())
                .map(wait -> wait.compareTo(retryAfterCap) > 0 ? retryAfterCap : wait);
    }

    @Override
    public void close() {
        http.close();
    }
}
