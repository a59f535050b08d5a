package io.paycallback.provider;

import io.paycallback.tracing.SpanAttribute;
import io.paycallback.tracing.SpanName;
import io.paycallback.tracing.Traced;
import io.paycallback.tracing.Tracing;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.core.buffer.Buffer;
import io.vertx.mutiny.ext.web.client.HttpRequest;
import io.vertx.mutiny.ext.web.client.HttpResponse;

import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeoutException;

/** Sends one request, bounded in time, and turns transport failures into {@link ProviderFailure}s. */
final class ProviderHttp {

    /** @param headers names in lower case */
    record Response(int status, Map<String, String> headers, byte[] body) {
    }

    private ProviderHttp() {
    }

    /**
     * One call, in a span of its own (a child of whatever span asked for it) that names the provider, the method and
     * the answer's status; never the URL, whose query may carry what the provider signs.
     *
     * @param body null for a request without one
     */
    static Uni<Response> send(Tracing tracing, String provider, HttpRequest<Buffer> request, byte[] body,
                              Duration timeout) {
        return Uni.createFrom().deferred(() -> {
            Traced span = tracing.start(SpanName.PROVIDER_CALL)
                    .set(SpanAttribute.PROVIDER, provider)
                    .set(SpanAttribute.HTTP_METHOD, request.method().name());
            return send(provider, request, body, timeout)
                    .onItem().invoke(response -> span.set(SpanAttribute.HTTP_STATUS, response.status()))
                    .onFailure(ProviderException.class).invoke(failure -> span.failed(
                            ((ProviderException) failure).failure().getClass().getSimpleName()))
                    .onTermination().invoke(span::end);
        });
    }

    private static Uni<Response> send(String provider, HttpRequest<Buffer> request, byte[] body, Duration timeout) {
        request.timeout(timeout.toMillis());
        Uni<HttpResponse<Buffer>> sent = body == null ? request.send() : request.sendBuffer(Buffer.buffer(body));
        return sent
                // The request timeout is an idle timeout; this bounds the whole call.
                .ifNoItem().after(timeout.plusSeconds(1)).failWith(TimeoutException::new)
                .map(ProviderHttp::response)
                .onFailure().transform(failure -> new ProviderException(provider, transportFailure(failure)));
    }

    private static Response response(HttpResponse<Buffer> response) {
        Map<String, String> headers = new HashMap<>();
        response.headers().forEach(entry -> headers.put(entry.getKey().toLowerCase(Locale.ROOT), entry.getValue()));
        Buffer body = response.body();
        return new Response(response.statusCode(), headers, body == null ? new byte[0] : body.getBytes());
    }

    private static ProviderFailure transportFailure(Throwable failure) {
        if (failure instanceof TimeoutException || failure.getClass().getSimpleName().contains("Timeout")) {
            return new ProviderFailure.Timeout();
        }
        return new ProviderFailure.Network(failure.getClass().getSimpleName());
    }
}
