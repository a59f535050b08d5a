package io.paycallback.callback;

import io.paycallback.channel.FormattedAnswer;
import io.paycallback.channel.CallbackKind;
import io.paycallback.channel.CallbackRequest;
import io.paycallback.channel.Channel;
import io.paycallback.channel.Channels;
import io.paycallback.config.PayCallbackConfig;
import io.vertx.core.Handler;
import io.vertx.core.MultiMap;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import org.jboss.logging.Logger;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The provider-facing endpoints, as plain Vert.x routes on the application's router. Nothing here needs what
 * RESTEasy Reactive adds per request (its handler chain, context propagation, ArC's request context), and in
 * deploy/bench that layer cost more of the CPU per callback than verification and JSON together
 * (docs/performance.md). Not {@code @Route} either: its handler activates the request context per request.
 * <p>
 * Runs on the event loop: verification is CPU only and the reservation goes through the reactive pool. The body is
 * taken as bytes because signatures cover the exact bytes sent. Answers, other methods included, are what the JAX-RS
 * resource before answered, byte for byte.
 */
@ApplicationScoped
public class CallbackRoutes {

    private static final Logger LOG = Logger.getLogger(CallbackRoutes.class);
    private static final String CHANNEL = "channel";
    private static final String MERCHANT = "merchantId";
    /** Spelt as RESTEasy wrote it, after content-length, so that answers stay the same byte for byte. */
    private static final String CONTENT_TYPE = "Content-Type";
    private static final FormattedAnswer UNKNOWN_CHANNEL = new FormattedAnswer(404, "text/plain", "unknown channel");

    private final Channels channels;
    private final CallbackService service;
    private final CallbackMetrics metrics;
    /**
     * One byte over the per-callback limit is all that is kept of a larger body: enough for the service to answer it
     * too large in the provider's format. Bodies announced larger than quarkus.http.limits.max-body-size never get
     * here (Quarkus answers them 413 before routing).
     */
    private final int keptBytes;

    public CallbackRoutes(Channels channels, CallbackService service, CallbackMetrics metrics,
                          CallbackConfig config) {
        this.channels = channels;
        this.service = service;
        this.metrics = metrics;
        this.keptBytes = (int) Math.min(Integer.MAX_VALUE - 1, config.maxBodySize().asLongValue()) + 1;
    }

    void register(@Observes Router router) {
        route(router, "/pay/callback/:" + CHANNEL,
                context -> receive(context, CallbackKind.PAYMENT, PayCallbackConfig.DEFAULT_MERCHANT));
        route(router, "/pay/callback/:" + CHANNEL + "/:" + MERCHANT,
                context -> receive(context, CallbackKind.PAYMENT, context.pathParam(MERCHANT)));
        route(router, "/refund/callback/:" + CHANNEL,
                context -> receive(context, CallbackKind.REFUND, PayCallbackConfig.DEFAULT_MERCHANT));
        route(router, "/refund/callback/:" + CHANNEL + "/:" + MERCHANT,
                context -> receive(context, CallbackKind.REFUND, context.pathParam(MERCHANT)));
    }

    /** Other methods get what JAX-RS answered for a POST-only resource: the allowed methods, or 405. */
    private static void route(Router router, String path, Handler<RoutingContext> post) {
        router.post(path).handler(post);
        router.route(path).handler(context -> {
            HttpServerResponse response = context.response();
            if (context.request().method() == HttpMethod.OPTIONS) {
                response.putHeader("Allow", "HEAD, POST, OPTIONS");
            } else {
                response.setStatusCode(405);
            }
            response.putHeader(HttpHeaders.CONTENT_LENGTH, "0").end();
        });
    }

    private void receive(RoutingContext context, CallbackKind kind, String merchantId) {
        HttpServerRequest request = context.request();
        if (request.isEnded()) {
            // Another handler (a body handler some extension installs) has read the body already.
            Buffer body = context.body().buffer();
            handle(context, kind, merchantId, body == null ? new byte[0] : body.getBytes());
            return;
        }
        Buffer body = Buffer.buffer();
        request.handler(chunk -> {
            int room = keptBytes - body.length();
            if (room > 0) {
                body.appendBuffer(chunk, 0, Math.min(room, chunk.length()));
            }
        });
        request.exceptionHandler(failure -> LOG.debugf("Callback request broken off: %s", failure));
        request.endHandler(ended -> handle(context, kind, merchantId, body.getBytes()));
        request.resume();
    }

    private void handle(RoutingContext context, CallbackKind kind, String merchantId, byte[] body) {
        Optional<Channel> found = channels.find(context.pathParam(CHANNEL));
        if (found.isEmpty()) {
            answer(context, UNKNOWN_CHANNEL);
            return;
        }
        Channel channel = found.get();
        long start = System.nanoTime();
        CallbackRequest request = new CallbackRequest(merchantId, kind, lowerCaseHeaders(context.request().headers()),
                body);
        service.handle(channel, request).subscribe().with(
                result -> {
                    metrics.record(channel.id(), kind, result, start);
                    answer(context, channel.answer(result.answerKind()));
                },
                context::fail);
    }

    private static Map<String, String> lowerCaseHeaders(MultiMap headers) {
        Map<String, String> lowerCase = new HashMap<>();
        for (Map.Entry<String, String> header : headers) {
            lowerCase.putIfAbsent(header.getKey().toLowerCase(Locale.ROOT), header.getValue());
        }
        return lowerCase;
    }

    private static void answer(RoutingContext context, FormattedAnswer answer) {
        HttpServerResponse response = context.response();
        if (response.closed()) {
            return;
        }
        response.setStatusCode(answer.status());
        if (answer.body() == null || answer.body().isEmpty()) {
            response.putHeader(HttpHeaders.CONTENT_LENGTH, "0").end();
            return;
        }
        Buffer body = Buffer.buffer(answer.body());
        response.putHeader(HttpHeaders.CONTENT_LENGTH, Integer.toString(body.length()))
                .putHeader(CONTENT_TYPE, answer.contentType())
                .end(body);
    }
}
