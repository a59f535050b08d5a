package io.paycallback.provider;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.paycallback.tracing.SpanAttribute;
import io.paycallback.tracing.SpanName;
import io.paycallback.tracing.Traced;
import io.paycallback.tracing.Tracing;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.Map;

/**
 * Bill downloads that stream: the JDK's HTTP client hands the body over as an {@link InputStream} that the bill
 * readers consume as it arrives, on the worker thread that runs the statement. Vert.x's WebClient (the other provider
 * calls) buffers a whole body, and a big merchant's bill has a million lines against a 128 MB heap; the JDK client
 * needs no extra dependency and works in a native image.
 */
public final class Downloads {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int ERROR_BODY_LIMIT = 4096;

    private final Duration timeout;
    private final Tracing tracing;
    /**
     * Built at the first download, not with the service: building the JDK's client loads the trust store and starts
     * its selector thread, a tenth of a second of every start (docs/performance.md) for calls made once a day.
     */
    private volatile HttpClient client;

    /** A provider may take a while to start sending a big bill: never less than this for the answer's head. */
    private static final Duration LEAST_TIMEOUT = Duration.ofSeconds(30);

    Downloads(Duration timeout, Tracing tracing) {
        this.timeout = atLeast(timeout);
        this.tracing = tracing;
    }

    private HttpClient client() {
        HttpClient built = client;
        if (built == null) {
            synchronized (this) {
                built = client;
                if (built == null) {
                    built = HttpClient.newBuilder().connectTimeout(timeout).followRedirects(HttpClient.Redirect.NORMAL).build();
                    client = built;
                }
            }
        }
        return built;
    }

    /** A bill call's time limit: the configured one, but never under 30 s (bills are not answered in a hurry). */
    static Duration atLeast(Duration timeout) {
        return timeout.compareTo(LEAST_TIMEOUT) < 0 ? LEAST_TIMEOUT : timeout;
    }

    /**
     * Starts a GET and answers its body once the status says it is the file; {@code timeout} bounds the wait for the
     * answer's head, not the whole transfer, which may take minutes. A provider call's span (a child of the statement
     * run's) lasts until the body is closed, so that it covers the transfer.
     */
    InputStream get(String provider, String url, Map<String, String> headers) {
        Traced span = tracing.start(SpanName.PROVIDER_CALL)
                .set(SpanAttribute.PROVIDER, provider)
                .set(SpanAttribute.KIND, "bill.download")
                .set(SpanAttribute.HTTP_METHOD, "GET");
        try {
            InputStream body = file(provider, url, headers, span);
            return new FilterInputStream(body) {
                @Override
                public void close() throws IOException {
                    try {
                        super.close();
                    } finally {
                        span.end();
                    }
                }
            };
        } catch (RuntimeException failure) {
            // Whatever ends the call before its body is handed over ends its span: a URL that is not one too.
            span.failed(failure instanceof ProviderException refused ? refused.failure().getClass().getSimpleName()
                    : failure.getClass().getSimpleName()).end();
            throw failure;
        }
    }

    private InputStream file(String provider, String url, Map<String, String> headers, Traced span) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url)).timeout(timeout).GET();
        headers.forEach(request::header);
        HttpResponse<InputStream> response;
        try {
            response = client().send(request.build(), HttpResponse.BodyHandlers.ofInputStream());
        } catch (HttpTimeoutException e) {
            throw new ProviderException(provider, new ProviderFailure.Timeout());
        } catch (IOException e) {
            throw new ProviderException(provider, new ProviderFailure.Network(e.getClass().getSimpleName()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ProviderException(provider, new ProviderFailure.Network("interrupted"));
        }
        int status = response.statusCode();
        span.set(SpanAttribute.HTTP_STATUS, status);
        if (status / 100 == 2) {
            return response.body();
        }
        String code = errorCode(response.body());
        if (status >= 500 || status == 429) {
            throw new ProviderException(provider, new ProviderFailure.ServerError(status, code));
        }
        throw new ProviderException(provider, new ProviderFailure.Rejected(status, code == null ? "UNKNOWN" : code, null));
    }

    /** The error code of a JSON error answer: WeChat Pay's {@code code}, Stripe's {@code error.code}. */
    private static String errorCode(InputStream body) {
        try (body) {
            JsonNode error = JSON.readTree(body.readNBytes(ERROR_BODY_LIMIT));
            JsonNode code = error.has("error") ? error.path("error").path("code") : error.path("code");
            return code.isTextual() ? code.asText() : null;
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }
}
