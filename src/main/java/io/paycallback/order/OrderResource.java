package io.paycallback.order;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import io.paycallback.ledger.MySqlErrors;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
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

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;

/** The order service registers, closes and reads orders here (bearer token; never routed by the ingress). */
@Path("/internal/orders")
@Produces(MediaType.APPLICATION_JSON)
public class OrderResource {

    private final Pool pool;
    private final Orders orders;
    private final ObjectReader reader;

    public OrderResource(Pool pool, Orders orders, ObjectMapper json) {
        this.pool = pool;
        this.orders = orders;
        this.reader = json.reader().with(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);
    }

    @POST
    @Consumes(MediaType.WILDCARD)
    public Uni<Response> create(String body) {
        OrderRequest request;
        try {
            JsonNode node = reader.readTree(body == null ? "" : body);
            request = OrderRequest.parse(node);
        } catch (IOException e) {
            return Uni.createFrom().item(error(Response.Status.BAD_REQUEST, "body is not valid JSON"));
        } catch (IllegalArgumentException e) {
            return Uni.createFrom().item(error(Response.Status.BAD_REQUEST, e.getMessage()));
        }
        return orders.create(pool, request.merchantId(), request.outTradeNo(), request.amount(), request.currency())
                .map(created -> Response.status(Response.Status.CREATED).entity(Map.of(
                        "merchantId", request.merchantId(), "outTradeNo", request.outTradeNo(),
                        "amount", request.amount().toPlainString(), "currency", request.currency(),
                        "status", OrderStatus.PENDING.name())).build())
                .onFailure(MySqlErrors::isDuplicateKey)
                .recoverWithItem(() -> error(Response.Status.CONFLICT, "order " + request.outTradeNo() + " already exists"));
    }

    @POST
    @Path("{outTradeNo}/close")
    public Uni<Response> close(@PathParam("outTradeNo") String outTradeNo,
                               @QueryParam("merchantId") @DefaultValue("default") String merchantId) {
        return orders.close(pool, merchantId, outTradeNo).flatMap(closed -> closed
                ? Uni.createFrom().item(Response.ok(Map.of("outTradeNo", outTradeNo, "status", OrderStatus.CLOSED.name())).build())
                : orders.find(pool, merchantId, outTradeNo).map(order -> order
                .map(found -> error(Response.Status.CONFLICT, "order is " + found.status() + ", only PENDING can close"))
                .orElseGet(() -> error(Response.Status.NOT_FOUND, "no order " + outTradeNo))));
    }

    @GET
    @Path("{outTradeNo}")
    public Uni<Response> get(@PathParam("outTradeNo") String outTradeNo,
                             @QueryParam("merchantId") @DefaultValue("default") String merchantId) {
        return orders.find(pool, merchantId, outTradeNo).map(order -> order
                .map(found -> Response.ok(view(found)).build())
                .orElseGet(() -> error(Response.Status.NOT_FOUND, "no order " + outTradeNo)));
    }

    private static Map<String, Object> view(Order order) {
        Map<String, Object> view = new LinkedHashMap<>();
        view.put("merchantId", order.merchantId());
        view.put("outTradeNo", order.outTradeNo());
        view.put("status", order.status().name());
        view.put("amount", order.amount().toPlainString());
        view.put("currency", order.currency());
        view.put("refundedAmount", order.refundedAmount().toPlainString());
        view.put("channel", order.channel());
        view.put("channelTradeNo", order.channelTradeNo());
        view.put("paidAt", order.paidAt() == null ? null : order.paidAt().toString());
        return view;
    }

    static Response error(Response.Status status, String message) {
        return Response.status(status).type(MediaType.APPLICATION_JSON_TYPE).entity(Map.of("error", message)).build();
    }
}
