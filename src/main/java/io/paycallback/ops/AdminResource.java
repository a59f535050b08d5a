package io.paycallback.ops;

import io.paycallback.ledger.CallbackLog;
import io.paycallback.ledger.CallbackRows;
import io.paycallback.ledger.LeasedTable;
import io.paycallback.ledger.Leases;
import io.paycallback.ledger.Quarantine;
import io.paycallback.ledger.RowStatus;
import io.paycallback.outbox.Outbox;
import io.paycallback.retry.Worker;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Dead letters, quarantine and the outbox for operators (bearer token, see {@link AdminAuthFilter}; never routed by the
 * ingress). Lists never carry raw bodies; one callback's body is shown only when asked for.
 */
@Path("/admin")
@Produces(MediaType.APPLICATION_JSON)
public class AdminResource {

    private static final int MAX_LIMIT = 500;

    private final CallbackRows rows;
    private final Replays replays;
    private final Leases leases;
    private final Quarantine quarantine;
    private final Outbox outbox;
    private final Worker worker;
    private final Pool pool;

    public AdminResource(CallbackRows rows, Replays replays, Leases leases, Quarantine quarantine, Outbox outbox,
                         Worker worker, Pool pool) {
        this.rows = rows;
        this.replays = replays;
        this.leases = leases;
        this.quarantine = quarantine;
        this.outbox = outbox;
        this.worker = worker;
        this.pool = pool;
    }

    @GET
    @Path("callbacks")
    public Uni<Response> list(@QueryParam("kind") @DefaultValue("payment") String kind,
                              @QueryParam("status") @DefaultValue("dead") String status,
                              @QueryParam("limit") @DefaultValue("50") int limit) {
        Optional<CallbackLog> log = log(kind);
        Optional<RowStatus> rowStatus = RowStatus.named(status);
        if (log.isEmpty() || rowStatus.isEmpty() || limit < 1 || limit > MAX_LIMIT) {
            return Uni.createFrom().item(error(Response.Status.BAD_REQUEST,
                    "kind is payment|refund, status is pending|done|dead|compacted, limit is 1.." + MAX_LIMIT));
        }
        return rows.list(log.get(), rowStatus.get(), limit).map(list -> Response.ok(list).build());
    }

    @GET
    @Path("callbacks/{kind}/{id}")
    public Uni<Response> inspect(@PathParam("kind") String kind, @PathParam("id") long id,
                                 @QueryParam("body") @DefaultValue("false") boolean withBody) {
        Optional<CallbackLog> log = log(kind);
        if (log.isEmpty()) {
            return Uni.createFrom().item(error(Response.Status.NOT_FOUND, "kind is payment or refund"));
        }
        return rows.find(log.get(), id).flatMap(found -> {
            if (found.isEmpty()) {
                return Uni.createFrom().item(error(Response.Status.NOT_FOUND, "no " + kind + " callback " + id));
            }
            if (!withBody) {
                return Uni.createFrom().item(Response.ok(found.get()).build());
            }
            return rows.rawBody(log.get(), id).map(body -> {
                Map<String, Object> view = new LinkedHashMap<>(found.get());
                view.put("rawBody", body.map(bytes -> new String(bytes, StandardCharsets.UTF_8)).orElse(""));
                return Response.ok(view).build();
            });
        });
    }

    @POST
    @Path("callbacks/{kind}/{id}/replay")
    public Uni<Response> replay(@PathParam("kind") String kind, @PathParam("id") long id) {
        Optional<CallbackLog> log = log(kind);
        if (log.isEmpty()) {
            return Uni.createFrom().item(error(Response.Status.NOT_FOUND, "kind is payment or refund"));
        }
        return replays.replay(log.get(), id).map(outcome -> {
            if (outcome instanceof Replays.Outcome.Queued) {
                return Response.accepted(Map.of("id", id, "status", "pending")).build();
            }
            if (outcome instanceof Replays.Outcome.Conflict conflict) {
                return error(Response.Status.CONFLICT, conflict.reason());
            }
            if (outcome instanceof Replays.Outcome.Unparseable unparseable) {
                return error(422, unparseable.reason());
            }
            return error(Response.Status.NOT_FOUND, "no " + kind + " callback " + id);
        });
    }

    @POST
    @Path("callbacks/{kind}/{id}/requeue")
    public Uni<Response> requeue(@PathParam("kind") String kind, @PathParam("id") long id) {
        Optional<CallbackLog> log = log(kind);
        if (log.isEmpty()) {
            return Uni.createFrom().item(error(Response.Status.NOT_FOUND, "kind is payment or refund"));
        }
        return requeue(LeasedTable.of(log.get()), id);
    }

    @GET
    @Path("quarantine")
    public Uni<Response> quarantine(@QueryParam("limit") @DefaultValue("50") int limit) {
        if (limit < 1 || limit > MAX_LIMIT) {
            return Uni.createFrom().item(error(Response.Status.BAD_REQUEST, "limit is 1.." + MAX_LIMIT));
        }
        return quarantine.list(limit).map(list -> Response.ok(list).build());
    }

    @GET
    @Path("outbox")
    public Uni<Response> outbox(@QueryParam("outTradeNo") String outTradeNo,
                                @QueryParam("merchantId") @DefaultValue("default") String merchantId) {
        if (outTradeNo == null || outTradeNo.isBlank()) {
            return Uni.createFrom().item(error(Response.Status.BAD_REQUEST, "outTradeNo is required"));
        }
        return outbox.listForOrder(pool, merchantId, outTradeNo).map(list -> Response.ok(list).build());
    }

    @POST
    @Path("outbox/{id}/requeue")
    public Uni<Response> requeueEvent(@PathParam("id") long id) {
        return requeue(LeasedTable.OUTBOX, id);
    }

    private Uni<Response> requeue(LeasedTable table, long id) {
        return leases.requeue(table, id).map(requeued -> {
            if (!requeued) {
                return error(Response.Status.CONFLICT, table.table() + " #" + id + " is not a dead letter");
            }
            worker.handOff(table, id);
            return Response.accepted(Map.of("id", id, "status", "pending")).build();
        });
    }

    private static Optional<CallbackLog> log(String kind) {
        return switch (kind) {
            case "payment" -> Optional.of(CallbackLog.PAYMENT);
            case "refund" -> Optional.of(CallbackLog.REFUND);
            default -> Optional.empty();
        };
    }

    private static Response error(Response.Status status, String message) {
        return error(status.getStatusCode(), message);
    }

    private static Response error(int status, String message) {
        return Response.status(status).type(MediaType.APPLICATION_JSON_TYPE).entity(Map.of("error", message)).build();
    }
}
