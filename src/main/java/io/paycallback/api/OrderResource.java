package io.paycallback.api;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import io.paycallback.auth.Roles;
import io.paycallback.config.PayCallbackConfig;
import io.paycallback.ops.OperatorAction;
import io.paycallback.ops.OperatorAction.Offers;
import io.paycallback.ops.OrderActions;
import io.paycallback.order.OrderStatus;
import io.smallrye.common.annotation.Blocking;
import io.smallrye.mutiny.Uni;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.SecurityContext;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.RequestBody;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.security.SecurityRequirement;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import java.io.IOException;

/** The order service registers, closes and reads orders here (never routed by the ingress). */
@Path("/internal/orders")
@Produces(MediaType.APPLICATION_JSON)
@RolesAllowed(Roles.ORDER_SERVICE)
@Tag(name = "orders")
@SecurityRequirement(name = ApiDocument.BEARER)
@APIResponse(responseCode = "401", description = "no or unknown bearer token")
@APIResponse(responseCode = "403", description = "the token is not the order service's")
public class OrderResource {

    private final OrderActions actions;
    private final ObjectReader reader;

    public OrderResource(OrderActions actions, ObjectMapper json) {
        this.actions = actions;
        this.reader = json.reader().with(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);
    }

    /** Read by hand rather than bound, so that every malformed field gets a message of its own (see OrderRequest). */
    @POST
    @Consumes(MediaType.WILDCARD)
    @RequestBody(content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = OrderRequest.class)))
    @APIResponse(responseCode = "201", description = "registered, PENDING",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = OrderViews.Created.class)))
    @APIResponse(responseCode = "400", description = "bad JSON or field",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = ErrorBody.class)))
    @APIResponse(responseCode = "409", description = "the order exists",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = ErrorBody.class)))
    public Uni<Response> create(String body) {
        OrderRequest request;
        try {
            JsonNode node = reader.readTree(body == null ? "" : body);
            request = OrderRequest.parse(node);
        } catch (IOException e) {
            return Uni.createFrom().item(ErrorBody.response(Response.Status.BAD_REQUEST, "body is not valid JSON"));
        } catch (IllegalArgumentException e) {
            return Uni.createFrom().item(ErrorBody.response(Response.Status.BAD_REQUEST, e.getMessage()));
        }
        return actions.register(request.merchantId(), request.outTradeNo(), request.amount(), request.currency(),
                        request.combine())
                .map(result -> Answers.json(result,
                        order -> Response.status(Response.Status.CREATED).entity(OrderViews.Created.of(request)).build()));
    }

    /**
     * Closes the order at its providers first, so the buyer's payment page stops taking money; blocking, because the
     * first try at the providers is made while the caller waits.
     */
    @POST
    @Path("{outTradeNo}/close")
    @Blocking
    @Offers(OperatorAction.ORDER_CLOSE)
    @APIResponse(responseCode = "200", description = "CLOSED: closed at the providers, or here only for a merchant without their API keys (closedAt tells)",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = OrderActions.ClosedOrder.class)))
    @APIResponse(responseCode = "202", description = "CLOSING: a provider was not reached; retried, GET shows the state",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = OrderActions.ClosedOrder.class)))
    @APIResponse(responseCode = "404", description = "no such order",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = ErrorBody.class)))
    @APIResponse(responseCode = "409", description = "the order is not PENDING, or a provider said it was paid (then it is PAID now)",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = OrderViews.NotClosed.class)))
    public Response close(@PathParam("outTradeNo") String outTradeNo,
                          @QueryParam("merchantId") @DefaultValue(PayCallbackConfig.DEFAULT_MERCHANT) String merchantId,
                          @Context SecurityContext caller) {
        String requestedBy = caller.getUserPrincipal() == null ? "unknown" : caller.getUserPrincipal().getName();
        return Answers.json(actions.close(merchantId, outTradeNo, requestedBy),
                closed -> (OrderStatus.CLOSING.name().equals(closed.status()) ? Response.accepted(closed) : Response.ok(closed)).build(),
                refused -> Response.status(Response.Status.CONFLICT).type(MediaType.APPLICATION_JSON_TYPE)
                        .entity(new OrderViews.NotClosed(refused.reason(), outTradeNo, refused.current().status())).build());
    }

    @GET
    @Path("{outTradeNo}")
    @APIResponse(responseCode = "200", description = "the order",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = OrderViews.OrderView.class)))
    @APIResponse(responseCode = "404", description = "no such order",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = ErrorBody.class)))
    public Uni<Response> get(@PathParam("outTradeNo") String outTradeNo,
                             @QueryParam("merchantId") @DefaultValue(PayCallbackConfig.DEFAULT_MERCHANT) String merchantId) {
        return actions.read(merchantId, outTradeNo).map(result -> Answers.json(result,
                order -> Response.ok(OrderViews.OrderView.of(order)).build()));
    }
}
