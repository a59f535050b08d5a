package io.paycallback.api;

import io.paycallback.config.PayCallbackConfig;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import io.paycallback.api.auth.Roles;
import io.paycallback.ledger.MySqlErrors;
import io.paycallback.order.OrderStatus;
import io.paycallback.order.Orders;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
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

    private final Pool pool;
    private final Orders orders;
    private final ObjectReader reader;

    public OrderResource(Pool pool, Orders orders, ObjectMapper json) {
        this.pool = pool;
        this.orders = orders;
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
        return orders.create(pool, request.merchantId(), request.outTradeNo(), request.amount(), request.currency())
                .map(created -> Response.status(Response.Status.CREATED).entity(OrderViews.Created.of(request)).build())
                .onFailure(MySqlErrors::isDuplicateKey)
                .recoverWithItem(() -> ErrorBody.response(Response.Status.CONFLICT, "order " + request.outTradeNo() + " already exists"));
    }

    @POST
    @Path("{outTradeNo}/close")
    @APIResponse(responseCode = "200", description = "PENDING → CLOSED",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = OrderViews.Closed.class)))
    @APIResponse(responseCode = "404", description = "no such order",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = ErrorBody.class)))
    @APIResponse(responseCode = "409", description = "the order is not PENDING",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = ErrorBody.class)))
    public Uni<Response> close(@PathParam("outTradeNo") String outTradeNo,
                               @QueryParam("merchantId") @DefaultValue(PayCallbackConfig.DEFAULT_MERCHANT) String merchantId) {
        return orders.close(pool, merchantId, outTradeNo).flatMap(closed -> closed
                ? Uni.createFrom().item(Response.ok(new OrderViews.Closed(outTradeNo, OrderStatus.CLOSED)).build())
                : orders.find(pool, merchantId, outTradeNo).map(order -> order
                .map(found -> ErrorBody.response(Response.Status.CONFLICT, "order is " + found.status() + ", only PENDING can close"))
                .orElseGet(() -> ErrorBody.response(Response.Status.NOT_FOUND, "no order " + outTradeNo))));
    }

    @GET
    @Path("{outTradeNo}")
    @APIResponse(responseCode = "200", description = "the order",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = OrderViews.OrderView.class)))
    @APIResponse(responseCode = "404", description = "no such order",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = ErrorBody.class)))
    public Uni<Response> get(@PathParam("outTradeNo") String outTradeNo,
                             @QueryParam("merchantId") @DefaultValue(PayCallbackConfig.DEFAULT_MERCHANT) String merchantId) {
        return orders.find(pool, merchantId, outTradeNo).map(order -> order
                .map(found -> Response.ok(OrderViews.OrderView.of(found)).build())
                .orElseGet(() -> ErrorBody.response(Response.Status.NOT_FOUND, "no order " + outTradeNo)));
    }
}
