package io.paycallback.callback;

import io.paycallback.config.PayCallbackConfig;
import io.paycallback.channel.Answer;
import io.paycallback.channel.CallbackKind;
import io.paycallback.channel.CallbackRequest;
import io.paycallback.channel.Channel;
import io.paycallback.channel.Channels;
import io.smallrye.mutiny.Uni;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The provider-facing endpoints. Runs on the event loop: verification is CPU only and the reservation goes through the
 * reactive pool. The body is taken as bytes because signatures cover the exact bytes sent.
 */
@Path("/")
@Consumes(MediaType.WILDCARD)
public class CallbackResource {


    private final Channels channels;
    private final CallbackService service;
    private final CallbackMetrics metrics;

    public CallbackResource(Channels channels, CallbackService service, CallbackMetrics metrics) {
        this.channels = channels;
        this.service = service;
        this.metrics = metrics;
    }

    @POST
    @Path("pay/callback/{channel}")
    public Uni<Response> payment(@PathParam("channel") String channel, HttpHeaders headers, byte[] body) {
        return handle(CallbackKind.PAYMENT, channel, PayCallbackConfig.DEFAULT_MERCHANT, headers, body);
    }

    @POST
    @Path("pay/callback/{channel}/{merchantId}")
    public Uni<Response> payment(@PathParam("channel") String channel, @PathParam("merchantId") String merchantId,
                                 HttpHeaders headers, byte[] body) {
        return handle(CallbackKind.PAYMENT, channel, merchantId, headers, body);
    }

    @POST
    @Path("refund/callback/{channel}")
    public Uni<Response> refund(@PathParam("channel") String channel, HttpHeaders headers, byte[] body) {
        return handle(CallbackKind.REFUND, channel, PayCallbackConfig.DEFAULT_MERCHANT, headers, body);
    }

    @POST
    @Path("refund/callback/{channel}/{merchantId}")
    public Uni<Response> refund(@PathParam("channel") String channel, @PathParam("merchantId") String merchantId,
                                HttpHeaders headers, byte[] body) {
        return handle(CallbackKind.REFUND, channel, merchantId, headers, body);
    }

    private Uni<Response> handle(CallbackKind kind, String channelPath, String merchantId, HttpHeaders headers,
                                 byte[] body) {
        Optional<Channel> found = channels.find(channelPath);
        if (found.isEmpty()) {
            return Uni.createFrom().item(Response.status(Response.Status.NOT_FOUND)
                    .type(MediaType.TEXT_PLAIN_TYPE).entity("unknown channel").build());
        }
        Channel channel = found.get();
        long start = System.nanoTime();
        CallbackRequest request = new CallbackRequest(merchantId, kind, lowerCaseHeaders(headers),
                body == null ? new byte[0] : body);
        return service.handle(channel, request)
                .invoke(result -> metrics.record(channel.id(), kind, result, start))
                .map(result -> toResponse(channel.answer(result.outcome())));
    }

    private static Map<String, String> lowerCaseHeaders(HttpHeaders headers) {
        Map<String, String> lowerCase = new HashMap<>();
        for (Map.Entry<String, List<String>> header : headers.getRequestHeaders().entrySet()) {
            if (!header.getValue().isEmpty()) {
                lowerCase.put(header.getKey().toLowerCase(Locale.ROOT), header.getValue().get(0));
            }
        }
        return lowerCase;
    }

    private static Response toResponse(Answer answer) {
        Response.ResponseBuilder response = Response.status(answer.status());
        if (answer.body() != null && !answer.body().isEmpty()) {
            response.type(answer.contentType()).entity(answer.body());
        }
        return response.build();
    }
}
