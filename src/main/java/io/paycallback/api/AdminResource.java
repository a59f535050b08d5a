package io.paycallback.api;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import io.paycallback.api.auth.Roles;
import io.paycallback.closing.CloseRequests;
import io.paycallback.config.PayCallbackConfig;
import io.paycallback.delivery.DeliveryAttempts;
import io.paycallback.delivery.RecordedAttempt;
import io.paycallback.inbox.CallbackLog;
import io.paycallback.inbox.CallbackRow;
import io.paycallback.inbox.CallbackRows;
import io.paycallback.inbox.Quarantine;
import io.paycallback.inbox.QuarantinedCallback;
import io.paycallback.lease.LeasedTable;
import io.paycallback.lease.RowStatus;
import io.paycallback.ops.AuditEntry;
import io.paycallback.ops.AuditLog;
import io.paycallback.ops.DeadLetters;
import io.paycallback.ops.QuarantineReplays;
import io.paycallback.ops.Replays;
import io.paycallback.ops.Requeues;
import io.paycallback.order.Refunds;
import io.paycallback.outbox.Outbox;
import io.paycallback.outbox.OutboxEvent;
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
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.SecurityContext;
import org.eclipse.microprofile.openapi.annotations.enums.SchemaType;
import org.eclipse.microprofile.openapi.annotations.enums.SecuritySchemeType;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.parameters.RequestBody;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.security.SecurityRequirement;
import org.eclipse.microprofile.openapi.annotations.security.SecurityScheme;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.function.Function;

/**
 * Dead letters, quarantine, the outbox and the audit log for operators (never routed by the ingress). Lists never
 * carry raw bodies; one callback's body is shown only when asked for. Every call is logged ({@link OperatorAccessLog})
 * and every state change audited.
 */
@Path("/admin")
@Produces(MediaType.APPLICATION_JSON)
@RolesAllowed(Roles.OPERATOR)
@OperatorAccessLog.Logged
@Tag(name = "admin")
@SecurityScheme(securitySchemeName = ApiDocument.BEARER, type = SecuritySchemeType.HTTP, scheme = "bearer")
@SecurityRequirement(name = ApiDocument.BEARER)
@APIResponse(responseCode = "401", description = "no or unknown bearer token")
@APIResponse(responseCode = "403", description = "the token is not an operator's")
public class AdminResource {

    private static final int MAX_LIMIT = 500;

    private final CallbackRows rows;
    private final Replays replays;
    private final QuarantineReplays quarantineReplays;
    private final Requeues requeues;
    private final Quarantine quarantine;
    private final Outbox outbox;
    private final DeliveryAttempts attempts;
    private final AuditLog audit;
    private final RequeueTokens tokens;
    private final Pool pool;
    private final ObjectReader bulkRequest;

    public AdminResource(CallbackRows rows, Replays replays, Requeues requeues, Quarantine quarantine, Outbox outbox,
                         DeliveryAttempts attempts, AuditLog audit, RequeueTokens tokens, Pool pool, ObjectMapper json,
                         QuarantineReplays quarantineReplays) {
        this.quarantineReplays = quarantineReplays;
        this.attempts = attempts;
        this.rows = rows;
        this.replays = replays;
        this.requeues = requeues;
        this.quarantine = quarantine;
        this.outbox = outbox;
        this.audit = audit;
        this.tokens = tokens;
        this.pool = pool;
        // A misspelt filter field must not widen a bulk requeue to every dead letter.
        this.bulkRequest = json.readerFor(AdminViews.BulkRequeueRequest.class)
                .with(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
    }

    @GET
    @Path("callbacks")
    @APIResponse(responseCode = "200", description = "newest due first, without raw bodies",
            content = @Content(mediaType = MediaType.APPLICATION_JSON,
                    schema = @Schema(type = SchemaType.ARRAY, implementation = CallbackRow.class)))
    @APIResponse(responseCode = "400", description = "bad kind, status or limit")
    public Uni<Response> list(@QueryParam("kind") @DefaultValue("payment") String kind,
                              @QueryParam("status") @DefaultValue("dead") String status,
                              @QueryParam("limit") @DefaultValue("50") int limit) {
        Optional<CallbackLog> log = CallbackLog.fromApiName(kind);
        Optional<RowStatus> rowStatus = RowStatus.named(status);
        if (log.isEmpty() || rowStatus.isEmpty() || !withinLimit(limit)) {
            return answer(Response.Status.BAD_REQUEST,
                    "kind is payment|refund, status is pending|done|dead|compacted, limit is 1.." + MAX_LIMIT);
        }
        return rows.list(log.get(), rowStatus.get(), limit).map(list -> Response.ok(list).build());
    }

    @GET
    @Path("callbacks/{kind}/{id}")
    @APIResponse(responseCode = "200", description = "one callback; with ?body=true its raw body too",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = CallbackRow.class)))
    @APIResponse(responseCode = "404", description = "no such kind or row")
    public Uni<Response> inspect(@PathParam("kind") String kind, @PathParam("id") long id,
                                 @QueryParam("body") @DefaultValue("false") boolean withBody) {
        return ofKind(kind, log -> rows.find(log, id).flatMap(found -> {
            if (found.isEmpty()) {
                return answer(Response.Status.NOT_FOUND, "no " + kind + " callback " + id);
            }
            if (!withBody) {
                return Uni.createFrom().item(Response.ok(found.get()).build());
            }
            return rows.rawBody(log, id).map(body -> Response.ok(found.get().withBody(
                    body.map(bytes -> new String(bytes, StandardCharsets.UTF_8)).orElse(""))).build());
        }));
    }

    @POST
    @Path("callbacks/{kind}/{id}/replay")
    @APIResponse(responseCode = "202", description = "re-parsed from its raw body, pending again",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = AdminViews.Queued.class)))
    @APIResponse(responseCode = "404", description = "no such kind or row")
    @APIResponse(responseCode = "409", description = "pending, body blanked, or the key changed")
    @APIResponse(responseCode = "422", description = "the body no longer parses as this callback")
    public Uni<Response> replay(@PathParam("kind") String kind, @PathParam("id") long id, @Context SecurityContext caller) {
        return ofKind(kind, log -> replays.replay(log, id, actor(caller)).map(outcome -> {
            if (outcome instanceof Replays.Outcome.Queued) {
                return Response.accepted(AdminViews.Queued.pending(id)).build();
            }
            if (outcome instanceof Replays.Outcome.Conflict conflict) {
                return ErrorBody.response(Response.Status.CONFLICT, conflict.reason());
            }
            if (outcome instanceof Replays.Outcome.Unparseable unparseable) {
                return ErrorBody.response(422, unparseable.reason());
            }
            return ErrorBody.response(Response.Status.NOT_FOUND, "no " + kind + " callback " + id);
        }));
    }

    @POST
    @Path("callbacks/{kind}/{id}/requeue")
    @APIResponse(responseCode = "202", description = "the dead letter is pending again with fresh tries",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = AdminViews.Queued.class)))
    @APIResponse(responseCode = "404", description = "no such kind")
    @APIResponse(responseCode = "409", description = "not a dead letter")
    public Uni<Response> requeue(@PathParam("kind") String kind, @PathParam("id") long id, @Context SecurityContext caller) {
        return ofKind(kind, log -> requeue(log.leased(), id, caller));
    }

    @GET
    @Path("quarantine")
    @APIResponse(responseCode = "200", description = "newest first, without bodies",
            content = @Content(mediaType = MediaType.APPLICATION_JSON,
                    schema = @Schema(type = SchemaType.ARRAY, implementation = QuarantinedCallback.class)))
    @APIResponse(responseCode = "400", description = "bad limit")
    public Uni<Response> quarantine(@QueryParam("limit") @DefaultValue("50") int limit) {
        if (!withinLimit(limit)) {
            return answer(Response.Status.BAD_REQUEST, "limit is 1.." + MAX_LIMIT);
        }
        return quarantine.list(limit).map(list -> Response.ok(list).build());
    }

    @POST
    @Path("quarantine/{id}/replay")
    @APIResponse(responseCode = "202", description = "it parses now: stored like its push (or found stored), released",
            content = @Content(mediaType = MediaType.APPLICATION_JSON,
                    schema = @Schema(implementation = AdminViews.QuarantineReplayed.class)))
    @APIResponse(responseCode = "404", description = "no such quarantined callback")
    @APIResponse(responseCode = "422", description = "it still does not parse; it stays")
    public Uni<Response> replayQuarantined(@PathParam("id") long id, @Context SecurityContext caller) {
        return quarantineReplays.replay(id, actor(caller)).map(outcome -> {
            if (outcome instanceof QuarantineReplays.Outcome.Stored stored) {
                return Response.accepted(new AdminViews.QuarantineReplayed(id, "stored", stored.detail())).build();
            }
            if (outcome instanceof QuarantineReplays.Outcome.Ignored ignored) {
                return Response.accepted(new AdminViews.QuarantineReplayed(id, "ignored", ignored.reason())).build();
            }
            if (outcome instanceof QuarantineReplays.Outcome.Unparseable unparseable) {
                return ErrorBody.response(422, unparseable.reason());
            }
            return ErrorBody.response(Response.Status.NOT_FOUND, "no quarantined callback " + id);
        });
    }

    @GET
    @Path("outbox")
    @APIResponse(responseCode = "200", description = "every event of the order, payload included",
            content = @Content(mediaType = MediaType.APPLICATION_JSON,
                    schema = @Schema(type = SchemaType.ARRAY, implementation = OutboxEvent.class)))
    @APIResponse(responseCode = "400", description = "outTradeNo missing")
    public Uni<Response> outbox(@QueryParam("outTradeNo") String outTradeNo,
                                @QueryParam("merchantId") @DefaultValue(PayCallbackConfig.DEFAULT_MERCHANT) String merchantId) {
        if (outTradeNo == null || outTradeNo.isBlank()) {
            return answer(Response.Status.BAD_REQUEST, "outTradeNo is required");
        }
        return outbox.listForOrder(pool, merchantId, outTradeNo).map(list -> Response.ok(list).build());
    }

    @GET
    @Path("outbox/{id}/attempts")
    @APIResponse(responseCode = "200", description = "every HTTP try of the event, oldest first",
            content = @Content(mediaType = MediaType.APPLICATION_JSON,
                    schema = @Schema(type = SchemaType.ARRAY, implementation = RecordedAttempt.class)))
    @APIResponse(responseCode = "404", description = "no such event in the hot table (unknown, or archived)")
    public Uni<Response> attempts(@PathParam("id") long id) {
        return attempts.list(id).map(found -> found.isPresent()
                ? Response.ok(found.get()).build()
                : ErrorBody.response(Response.Status.NOT_FOUND, "no outbox event " + id));
    }

    @POST
    @Path("outbox/{id}/requeue")
    @APIResponse(responseCode = "202", description = "the dead event is pending again with fresh tries",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = AdminViews.Queued.class)))
    @APIResponse(responseCode = "409", description = "not a dead letter")
    public Uni<Response> requeueEvent(@PathParam("id") long id, @Context SecurityContext caller) {
        return requeue(Outbox.TABLE, id, caller);
    }

    /** A close given up on: the order is still CLOSING, and its next try closes it at the providers or finds it paid. */
    @POST
    @Path("close-requests/{id}/requeue")
    @APIResponse(responseCode = "202", description = "the dead close request is pending again with fresh tries",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = AdminViews.Queued.class)))
    @APIResponse(responseCode = "409", description = "not a dead letter",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = ErrorBody.class)))
    public Uni<Response> requeueClose(@PathParam("id") long id, @Context SecurityContext caller) {
        return requeue(CloseRequests.TABLE, id, caller);
    }

    /**
     * A refund submission given up on (rejected, out of tries, or still not final after the last query): its next try
     * submits it again under the same refund number, or asks the provider about the accepted refund, until it is final.
     */
    @POST
    @Path("refund-submissions/{id}/requeue")
    @APIResponse(responseCode = "202", description = "the dead refund submission is pending again with fresh tries",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = AdminViews.Queued.class)))
    @APIResponse(responseCode = "409", description = "not a dead letter")
    public Uni<Response> requeueRefundSubmission(@PathParam("id") long id, @Context SecurityContext caller) {
        return requeue(Refunds.SUBMISSIONS, id, caller);
    }

    @POST
    @Path("requeue")
    @Consumes(MediaType.WILDCARD)
    @RequestBody(content = @Content(mediaType = MediaType.APPLICATION_JSON,
            schema = @Schema(implementation = AdminViews.BulkRequeueRequest.class)))
    @APIResponse(responseCode = "200", description = "a dry run (the default): the match count and its token",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = AdminViews.DryRun.class)))
    @APIResponse(responseCode = "202", description = "the dry run's rows that were still dead are pending again",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = AdminViews.Applied.class)))
    @APIResponse(responseCode = "400", description = "bad filter or token")
    public Uni<Response> bulkRequeue(String body, @Context SecurityContext caller) {
        AdminViews.BulkRequeueRequest request;
        try {
            request = bulkRequest.readValue(body == null || body.isBlank() ? "{}" : body);
        } catch (IOException e) {
            return answer(Response.Status.BAD_REQUEST,
                    "body must be a JSON object with table, from, to, channel, merchantId, destination, errorContains,"
                            + " dryRun, token");
        }
        if (request.token() == null) {
            if (Boolean.FALSE.equals(request.dryRun())) {
                return answer(Response.Status.BAD_REQUEST,
                        "a requeue takes the token of a dry run: send the filter without dryRun first");
            }
            DeadLetters.Filter filter;
            try {
                filter = request.toFilter();
            } catch (IllegalArgumentException e) {
                return answer(Response.Status.BAD_REQUEST, e.getMessage());
            }
            return requeues.select(filter).map(selection ->
                    Response.ok(AdminViews.DryRun.of(selection, tokens.encode(selection))).build());
        }
        if (request.hasFilter()) {
            return answer(Response.Status.BAD_REQUEST,
                    "with a token, leave the filter out: the token carries the dry run's filter");
        }
        DeadLetters.Selection selection;
        try {
            selection = tokens.decode(request.token());
        } catch (IllegalArgumentException e) {
            return answer(Response.Status.BAD_REQUEST, e.getMessage());
        }
        if (!Boolean.FALSE.equals(request.dryRun())) {
            return Uni.createFrom().item(Response.ok(AdminViews.DryRun.of(selection, request.token())).build());
        }
        return requeues.apply(selection, actor(caller))
                .map(applied -> Response.accepted(AdminViews.Applied.of(selection, applied)).build());
    }

    @GET
    @Path("audit")
    @APIResponse(responseCode = "200", description = "operator actions that changed state, newest first",
            content = @Content(mediaType = MediaType.APPLICATION_JSON,
                    schema = @Schema(type = SchemaType.ARRAY, implementation = AuditEntry.class)))
    @APIResponse(responseCode = "400", description = "bad limit")
    public Uni<Response> audit(@QueryParam("limit") @DefaultValue("50") int limit,
                               @QueryParam("beforeId") @DefaultValue("" + Long.MAX_VALUE) long beforeId) {
        if (!withinLimit(limit)) {
            return answer(Response.Status.BAD_REQUEST, "limit is 1.." + MAX_LIMIT);
        }
        return audit.list(beforeId, limit).map(list -> Response.ok(list).build());
    }

    private Uni<Response> requeue(LeasedTable table, long id, SecurityContext caller) {
        return requeues.requeue(table, id, actor(caller)).map(requeued -> requeued
                ? Response.accepted(AdminViews.Queued.pending(id)).build()
                : ErrorBody.response(Response.Status.CONFLICT, table.table() + " #" + id + " is not a dead letter"));
    }

    /** The audit name of the caller: its token's name (the identity carries nothing else). */
    private static String actor(SecurityContext caller) {
        return caller.getUserPrincipal().getName();
    }

    /** The callback log an API path names ({@code payment} or {@code refund}), else 404 for every operation on it. */
    private static Uni<Response> ofKind(String kind, Function<CallbackLog, Uni<Response>> operation) {
        return CallbackLog.fromApiName(kind).map(operation)
                .orElseGet(() -> answer(Response.Status.NOT_FOUND, "kind is payment or refund"));
    }

    private static boolean withinLimit(int limit) {
        return limit >= 1 && limit <= MAX_LIMIT;
    }

    private static Uni<Response> answer(Response.Status status, String message) {
        return Uni.createFrom().item(ErrorBody.response(status, message));
    }
}
