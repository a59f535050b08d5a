package io.paycallback.api;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.paycallback.auth.MerchantScope;
import io.paycallback.auth.Roles;
import io.paycallback.auth.WithinMerchantScope;
import io.paycallback.config.PayCallbackConfig;
import io.paycallback.ops.OperatorAction;
import io.paycallback.ops.OperatorAction.Offers;
import io.paycallback.ops.OrderActions;
import io.paycallback.order.OrderStatus;
import io.quarkus.security.identity.SecurityIdentity;
import io.smallrye.common.annotation.Blocking;
import io.smallrye.mutiny.Uni;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.Consumes;
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
import java.util.Optional;

/**
 * The order service registers, closes and reads orders here (never routed by the ingress). A key made as data reaches
 * only its merchants ({@link MerchantScope}): another merchant's order answers 404, as one that does not exist; a
 * request naming no merchant means the key's merchant when it has exactly one, else {@code default}.
 */
@Path("/internal/orders")
@Produces(MediaType.APPLICATION_JSON)
@RolesAllowed(Roles.ORDER_SERVICE)
@WithinMerchantScope.Honoured
@Tag(name = "orders")
@SecurityRequirement(name = ApiDocument.BEARER)
@APIResponse(responseCode = "401", description = "no or unknown bearer token")
@APIResponse(responseCode = "403", description = "the token is not the order service's")
@APIResponse(responseCode = "429", description = "too many failed tokens from this address or with this key's prefix; see Retry-After")
public class OrderResource {

    private static final String MERCHANT_ID = "merchantId";

    private final OrderActions actions;
    private final ObjectReader reader;
    private final SecurityIdentity identity;

    public OrderResource(OrderActions actions, ObjectMapper json, SecurityIdentity identity) {
        this.actions = actions;
        this.reader = json.reader().with(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);
        this.identity = identity;
    }

    /** Read by hand rather than bound, so that every malformed field gets a message of its own (see OrderRequest). */
    @POST
    @Consumes(MediaType.WILDCARD)
    @RequestBody(content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = OrderRequest.class)))
    @APIResponse(responseCode = "201", description = "registered, PENDING",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = OrderViews.Created.class)))
    @APIResponse(responseCode = "400", description = "bad JSON or field",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = ErrorBody.class)))
    @APIResponse(responseCode = "404", description = "a merchant this key does not reach",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = ErrorBody.class)))
    @APIResponse(responseCode = "409", description = "the order exists",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = ErrorBody.class)))
    public Uni<Response> create(String body) {
        OrderRequest request;
        MerchantScope scope = MerchantScope.of(identity);
        try {
            JsonNode node = reader.readTree(body == null ? "" : body);
            if (node instanceof ObjectNode object && !object.hasNonNull(MERCHANT_ID)) {
                scope.only().ifPresent(merchant -> object.put(MERCHANT_ID, merchant));
            }
            request = OrderRequest.parse(node);
        } catch (IOException e) {
            return Uni.createFrom().item(ErrorBody.response(Response.Status.BAD_REQUEST, "body is not valid JSON"));
        } catch (IllegalArgumentException e) {
            return Uni.createFrom().item(ErrorBody.response(Response.Status.BAD_REQUEST, e.getMessage()));
        }
        if (!scope.reaches(request.merchantId())) {
            return Uni.createFrom().item(notReached(request.merchantId()));
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
                          @QueryParam(MERCHANT_ID) @Schema(defaultValue = PayCallbackConfig.DEFAULT_MERCHANT) String named,
                          @Context SecurityContext caller) {
        Optional<String> reached = merchant(named);
        if (reached.isEmpty()) {
            return noOrder(outTradeNo);
        }
        String merchantId = reached.get();
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
                             @QueryParam(MERCHANT_ID) @Schema(defaultValue = PayCallbackConfig.DEFAULT_MERCHANT) String named) {
        Optional<String> reached = merchant(named);
        if (reached.isEmpty()) {
            return Uni.createFrom().item(noOrder(outTradeNo));
        }
        return actions.read(reached.get(), outTradeNo).map(result -> Answers.json(result,
                order -> Response.ok(OrderViews.OrderView.of(order)).build()));
    }

    /** The merchant the request means, if the caller reaches it. */
    private Optional<String> merchant(String named) {
        return MerchantScope.of(identity).resolve(named, PayCallbackConfig.DEFAULT_MERCHANT);
    }

    /** Exactly what an order that does not exist answers, so a scoped key cannot tell the two apart. */
    private static Response noOrder(String outTradeNo) {
        return ErrorBody.response(Response.Status.NOT_FOUND, "no order " + outTradeNo);
    }

    private static Response notReached(String merchantId) {
        return ErrorBody.response(Response.Status.NOT_FOUND, "no merchant " + merchantId);
    }
}
