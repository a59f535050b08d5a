package io.paycallback.api;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import io.paycallback.auth.MerchantScope;
import io.paycallback.auth.Roles;
import io.paycallback.auth.WithinMerchantScope;
import io.paycallback.config.PayCallbackConfig;
import io.paycallback.delivery.RecordedAttempt;
import io.paycallback.inbox.CallbackRow;
import io.paycallback.inbox.QuarantinedCallback;
import io.paycallback.ops.ActionResult;
import io.paycallback.ops.AuditEntry;
import io.paycallback.ops.AuditLogListing;
import io.paycallback.ops.BulkRequeues;
import io.paycallback.ops.CallbackActions;
import io.paycallback.ops.DeadLetterActions;
import io.paycallback.ops.DeadLetters;
import io.paycallback.ops.EventActions;
import io.paycallback.ops.OperationsOverview;
import io.paycallback.ops.OperatorAction.Offers;
import io.paycallback.ops.OperatorAction;
import io.paycallback.ops.OrderActions;
import io.paycallback.ops.QuarantineActions;
import io.paycallback.ops.TrendActions;
import io.paycallback.outbox.OutboxEvent;
import io.paycallback.trend.Trends;
import io.quarkus.security.identity.SecurityIdentity;
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
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The operator actions of {@code io.paycallback.ops} as JSON (never routed by the ingress). Lists never carry raw
 * bodies; one callback's body is shown only when asked for. Every call is logged ({@link OperatorAccessLog}); every
 * state change is audited by the action itself.
 */
@Path("/admin")
@Produces(MediaType.APPLICATION_JSON)
@RolesAllowed({Roles.OPERATOR, Roles.VIEWER})
@OperatorAccessLog.Logged
@Tag(name = "admin")
@SecurityScheme(securitySchemeName = ApiDocument.BEARER, type = SecuritySchemeType.HTTP, scheme = "bearer")
@SecurityRequirement(name = ApiDocument.BEARER)
@APIResponse(responseCode = "401", description = "no or unknown bearer token")
@APIResponse(responseCode = "403", description = "the caller is not an operator (a viewer may only read), or is scoped to merchants")
public class AdminResource {

    /** The plural path segments the requeue of a dead row was first offered under, to the tables' labels. */
    private static final Map<String, String> LEGACY_TABLES = Map.of("outbox", "outbox", "close-requests", "close-request",
            "refund-submissions", "refund-submission");

    private final OperationsOverview overview;
    private final TrendActions trends;
    private final CallbackActions callbacks;
    private final DeadLetterActions deadLetters;
    private final BulkRequeues bulk;
    private final QuarantineActions quarantine;
    private final EventActions events;
    private final OrderActions orders;
    private final AuditLogListing audit;
    private final ObjectReader bulkRequest;
    private final SecurityIdentity identity;

    public AdminResource(OperationsOverview overview, TrendActions trends, CallbackActions callbacks,
                         DeadLetterActions deadLetters, BulkRequeues bulk, QuarantineActions quarantine,
                         EventActions events, OrderActions orders, AuditLogListing audit, ObjectMapper json,
                         SecurityIdentity identity) {
        this.overview = overview;
        this.trends = trends;
        this.callbacks = callbacks;
        this.deadLetters = deadLetters;
        this.bulk = bulk;
        this.quarantine = quarantine;
        this.events = events;
        this.orders = orders;
        this.audit = audit;
        this.identity = identity;
        // A misspelt filter field must not widen a bulk requeue to every dead letter.
        this.bulkRequest = json.readerFor(AdminViews.BulkRequeueRequest.class)
                .with(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
    }

    @GET
    @Path("overview")
    @Offers(OperatorAction.OVERVIEW)
    @APIResponse(responseCode = "200", description = "rows by status per table, the backlog, the last hour's refusals",
            content = @Content(mediaType = MediaType.APPLICATION_JSON,
                    schema = @Schema(implementation = OperationsOverview.Overview.class)))
    public Uni<Response> overview() {
        return overview.read().map(Answers::ok);
    }

    @GET
    @Path("trends")
    @Offers(OperatorAction.TRENDS)
    @APIResponse(responseCode = "200", description = "the charts of the last hours: callbacks, payments, deliveries,"
            + " their duration, backlog and dead letters, a value per point, summed or sampled over every instance",
            content = @Content(mediaType = MediaType.APPLICATION_JSON,
                    schema = @Schema(implementation = Trends.Picture.class)))
    @APIResponse(responseCode = "400", description = "hours is not 1, 6 or 24")
    public Uni<Response> trends(@QueryParam("hours") Integer hours) {
        return trends.read(hours).map(Answers::ok);
    }

    @GET
    @Path("callbacks")
    @Offers(OperatorAction.CALLBACK_LIST)
    @APIResponse(responseCode = "200", description = "newest due first, without raw bodies",
            content = @Content(mediaType = MediaType.APPLICATION_JSON,
                    schema = @Schema(type = SchemaType.ARRAY, implementation = CallbackRow.class)))
    @APIResponse(responseCode = "400", description = "bad kind, status or limit")
    public Uni<Response> list(@QueryParam("kind") @DefaultValue("payment") String kind,
                              @QueryParam("status") @DefaultValue("dead") String status,
                              @QueryParam("limit") @DefaultValue("50") int limit) {
        return callbacks.list(kind, status, limit).map(Answers::ok);
    }

    @GET
    @Path("callbacks/{kind}/{id}")
    @Offers(OperatorAction.CALLBACK_INSPECT)
    @APIResponse(responseCode = "200", description = "one callback, live or archived; with ?body=true its raw body too"
            + " (empty once housekeeping blanked it, as it does before archiving)",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = CallbackRow.class)))
    @APIResponse(responseCode = "404", description = "no such kind or row")
    @WithinMerchantScope.Honoured
    public Uni<Response> inspect(@PathParam("kind") String kind, @PathParam("id") long id,
                                 @QueryParam("body") @DefaultValue("false") boolean withBody) {
        MerchantScope scope = scope();
        return callbacks.inspect(kind, id, withBody).map(result -> result instanceof ActionResult.Done<CallbackRow> done
                && !scope.reaches(done.value().merchantId()) ? ErrorBody.response(Response.Status.NOT_FOUND,
                "no " + kind + " callback " + id) : Answers.ok(result));
    }

    @POST
    @RolesAllowed(Roles.OPERATOR)
    @Path("callbacks/{kind}/{id}/replay")
    // Inspects first: a scoped operator acts only on their merchants' callbacks.
    @Offers({OperatorAction.CALLBACK_REPLAY, OperatorAction.CALLBACK_INSPECT})
    @APIResponse(responseCode = "202", description = "re-parsed from its raw body, pending again",
            content = @Content(mediaType = MediaType.APPLICATION_JSON,
                    schema = @Schema(implementation = DeadLetterActions.Queued.class)))
    @APIResponse(responseCode = "404", description = "no such kind or row")
    @APIResponse(responseCode = "409", description = "pending, body blanked, or the key changed")
    @APIResponse(responseCode = "422", description = "the body no longer parses as this callback")
    @WithinMerchantScope.Honoured
    public Uni<Response> replay(@PathParam("kind") String kind, @PathParam("id") long id, @Context SecurityContext caller) {
        return withinScope(kind, id, () -> callbacks.replay(kind, id, actor(caller)).map(Answers::accepted));
    }

    @POST
    @RolesAllowed(Roles.OPERATOR)
    @Path("callbacks/{kind}/{id}/requeue")
    @Offers({OperatorAction.REQUEUE, OperatorAction.CALLBACK_INSPECT})
    @APIResponse(responseCode = "202", description = "the dead letter is pending again with fresh tries",
            content = @Content(mediaType = MediaType.APPLICATION_JSON,
                    schema = @Schema(implementation = DeadLetterActions.Queued.class)))
    @APIResponse(responseCode = "404", description = "no such kind or row")
    @APIResponse(responseCode = "409", description = "not a dead letter")
    @WithinMerchantScope.Honoured
    public Uni<Response> requeueCallback(@PathParam("kind") String kind, @PathParam("id") long id,
                                         @Context SecurityContext caller) {
        return withinScope(kind, id, () -> deadLetters.requeue(kind, id, actor(caller)).map(Answers::accepted));
    }

    /**
     * For a caller scoped to merchants, a callback of another merchant is answered as if it did not exist; only then
     * is the action run. Unscoped callers go straight to it.
     */
    private Uni<Response> withinScope(String kind, long id, Supplier<Uni<Response>> action) {
        MerchantScope scope = scope();
        if (scope.merchants().isEmpty()) {
            return action.get();
        }
        return callbacks.inspect(kind, id, false).flatMap(found -> found instanceof ActionResult.Done<CallbackRow> done
                && scope.reaches(done.value().merchantId()) ? action.get()
                : Uni.createFrom().item(ErrorBody.response(Response.Status.NOT_FOUND, "no " + kind + " callback " + id)));
    }

    private MerchantScope scope() {
        return MerchantScope.of(identity);
    }

    /**
     * A dead event, close request (the order is still CLOSING, and its next try closes it at the providers or finds
     * it paid) or refund submission (its next try submits it again under the same refund number, or asks about the
     * accepted refund), under the paths these were first offered at; {@code dead-letters/{table}/{id}/requeue} is the
     * same for every table.
     */
    @POST
    @RolesAllowed(Roles.OPERATOR)
    @Path("{table: outbox|close-requests|refund-submissions}/{id}/requeue")
    @Offers(OperatorAction.REQUEUE)
    @APIResponse(responseCode = "202", description = "the dead row is pending again with fresh tries",
            content = @Content(mediaType = MediaType.APPLICATION_JSON,
                    schema = @Schema(implementation = DeadLetterActions.Queued.class)))
    @APIResponse(responseCode = "404", description = "no such row")
    @APIResponse(responseCode = "409", description = "not a dead letter")
    public Uni<Response> requeueLegacy(@PathParam("table") String table, @PathParam("id") long id,
                                       @Context SecurityContext caller) {
        return deadLetters.requeue(LEGACY_TABLES.get(table), id, actor(caller)).map(Answers::accepted);
    }

    @GET
    @Path("dead-letters")
    @Offers(OperatorAction.DEAD_LETTER_LIST)
    @APIResponse(responseCode = "200", description = "the table's dead rows, the latest to die first",
            content = @Content(mediaType = MediaType.APPLICATION_JSON,
                    schema = @Schema(type = SchemaType.ARRAY, implementation = DeadLetters.DeadLetter.class)))
    @APIResponse(responseCode = "400", description = "bad limit")
    @APIResponse(responseCode = "404", description = "no such table (the answer lists them)")
    public Uni<Response> deadLetters(@QueryParam("table") @DefaultValue("payment") String table,
                                     @QueryParam("limit") @DefaultValue("50") int limit) {
        return deadLetters.list(table, limit).map(Answers::ok);
    }

    @POST
    @RolesAllowed(Roles.OPERATOR)
    @Path("dead-letters/{table}/{id}/requeue")
    @Offers(OperatorAction.REQUEUE)
    @APIResponse(responseCode = "202", description = "the dead row is pending again with fresh tries",
            content = @Content(mediaType = MediaType.APPLICATION_JSON,
                    schema = @Schema(implementation = DeadLetterActions.Queued.class)))
    @APIResponse(responseCode = "404", description = "no such table or row")
    @APIResponse(responseCode = "409", description = "not a dead letter")
    public Uni<Response> requeue(@PathParam("table") String table, @PathParam("id") long id,
                                 @Context SecurityContext caller) {
        return deadLetters.requeue(table, id, actor(caller)).map(Answers::accepted);
    }

    @POST
    @RolesAllowed(Roles.OPERATOR)
    @Path("dead-letters/{table}/{id}/resolve")
    @Consumes(MediaType.APPLICATION_JSON)
    @Offers(OperatorAction.DEAD_LETTER_RESOLVE)
    @APIResponse(responseCode = "200", description = "closed with the note, audited: done, never tried again",
            content = @Content(mediaType = MediaType.APPLICATION_JSON,
                    schema = @Schema(implementation = DeadLetterActions.Resolved.class)))
    @APIResponse(responseCode = "400", description = "no note, or one over 400 characters")
    @APIResponse(responseCode = "404", description = "no such table or row")
    @APIResponse(responseCode = "409", description = "not a dead letter")
    public Uni<Response> resolve(@PathParam("table") String table, @PathParam("id") long id,
                                 AdminViews.NoteRequest request, @Context SecurityContext caller) {
        return deadLetters.resolve(table, id, request == null ? null : request.note(), actor(caller)).map(Answers::ok);
    }

    @GET
    @Path("quarantine")
    @Offers(OperatorAction.QUARANTINE_LIST)
    @APIResponse(responseCode = "200", description = "newest first, without bodies",
            content = @Content(mediaType = MediaType.APPLICATION_JSON,
                    schema = @Schema(type = SchemaType.ARRAY, implementation = QuarantinedCallback.class)))
    @APIResponse(responseCode = "400", description = "bad limit")
    public Uni<Response> quarantine(@QueryParam("limit") @DefaultValue("50") int limit) {
        return quarantine.list(limit).map(Answers::ok);
    }

    @POST
    @RolesAllowed(Roles.OPERATOR)
    @Path("quarantine/{id}/replay")
    @Offers(OperatorAction.QUARANTINE_REPLAY)
    @APIResponse(responseCode = "202", description = "it parses now: stored like its push (or found stored), released",
            content = @Content(mediaType = MediaType.APPLICATION_JSON,
                    schema = @Schema(implementation = QuarantineActions.QuarantineReplayed.class)))
    @APIResponse(responseCode = "404", description = "no such quarantined callback")
    @APIResponse(responseCode = "422", description = "it still does not parse; it stays")
    public Uni<Response> replayQuarantined(@PathParam("id") long id, @Context SecurityContext caller) {
        return quarantine.replay(id, actor(caller)).map(Answers::accepted);
    }

    @GET
    @Path("outbox")
    @Offers(OperatorAction.EVENT_LIST)
    @APIResponse(responseCode = "200", description = "with outTradeNo, every event of that order of merchantId"
            + " (default: default); otherwise the events in status (default dead), newest due first, narrowed by"
            + " merchantId, type and destination; payloads included",
            content = @Content(mediaType = MediaType.APPLICATION_JSON,
                    schema = @Schema(type = SchemaType.ARRAY, implementation = OutboxEvent.class)))
    @APIResponse(responseCode = "400", description = "bad status, type or limit")
    public Uni<Response> outbox(@QueryParam("outTradeNo") String outTradeNo, @QueryParam("merchantId") String merchantId,
                                @QueryParam("status") String status, @QueryParam("type") String type,
                                @QueryParam("destination") String destination,
                                @QueryParam("limit") @DefaultValue("50") int limit) {
        return events.list(new EventActions.Criteria(outTradeNo, merchantId, status, type, destination), limit)
                .map(Answers::ok);
    }

    @GET
    @Path("outbox/{id}/attempts")
    @Offers(OperatorAction.EVENT_ATTEMPTS)
    @APIResponse(responseCode = "200", description = "every HTTP try of the event, oldest first, archived with it or not",
            content = @Content(mediaType = MediaType.APPLICATION_JSON,
                    schema = @Schema(type = SchemaType.ARRAY, implementation = RecordedAttempt.class)))
    @APIResponse(responseCode = "404", description = "no such event, live or archived")
    public Uni<Response> attempts(@PathParam("id") long id) {
        return events.attempts(id).map(Answers::ok);
    }

    @GET
    @Path("orders")
    @Offers(OperatorAction.ORDER_TIMELINE)
    @APIResponse(responseCode = "200", description = "the order numbers the number leads to, and the story of the order"
            + " when exactly one does: its state changes, callbacks, refunds, events and their tries, archived rows included",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = AdminViews.Found.class)))
    @APIResponse(responseCode = "400", description = "no number, or by is not order|trade|refund")
    @APIResponse(responseCode = "404", description = "for an operator scoped to merchants: a merchant outside the scope")
    @WithinMerchantScope.Honoured
    public Uni<Response> order(@QueryParam("by") @DefaultValue("order") String by, @QueryParam("q") String number,
                               @QueryParam("merchantId") String merchantId) {
        MerchantScope scope = scope();
        String merchant = merchantId;
        if (!scope.merchants().isEmpty()) {
            Optional<String> reached = scope.resolve(merchantId, PayCallbackConfig.DEFAULT_MERCHANT);
            if (reached.isEmpty()) {
                return Uni.createFrom().item(ErrorBody.response(Response.Status.NOT_FOUND, "no such merchant"));
            }
            merchant = reached.get();
        }
        return orders.find(by, merchant, number).map(result -> Answers.json(result,
                found -> Response.ok(AdminViews.Found.of(found)).build()));
    }

    @POST
    @RolesAllowed(Roles.OPERATOR)
    @Path("requeue")
    @Consumes(MediaType.WILDCARD)
    @Offers({OperatorAction.BULK_REQUEUE_DRY_RUN, OperatorAction.BULK_REQUEUE_RECOUNT, OperatorAction.BULK_REQUEUE_APPLY})
    @RequestBody(content = @Content(mediaType = MediaType.APPLICATION_JSON,
            schema = @Schema(implementation = AdminViews.BulkRequeueRequest.class)))
    @APIResponse(responseCode = "200", description = "a dry run (the default): the match count and its token",
            content = @Content(mediaType = MediaType.APPLICATION_JSON,
                    schema = @Schema(implementation = BulkRequeues.DryRun.class)))
    @APIResponse(responseCode = "202", description = "the dry run's rows that were still dead are pending again",
            content = @Content(mediaType = MediaType.APPLICATION_JSON,
                    schema = @Schema(implementation = BulkRequeues.Applied.class)))
    @APIResponse(responseCode = "400", description = "bad filter or token")
    public Uni<Response> bulkRequeue(String body, @Context SecurityContext caller) {
        AdminViews.BulkRequeueRequest request;
        try {
            request = bulkRequest.readValue(body == null || body.isBlank() ? "{}" : body);
        } catch (IOException e) {
            return bad("body must be a JSON object with table, from, to, channel, merchantId, destination, errorContains,"
                    + " dryRun, token");
        }
        if (request.token() == null) {
            if (Boolean.FALSE.equals(request.dryRun())) {
                return bad("a requeue takes the token of a dry run: send the filter without dryRun first");
            }
            return bulk.dryRun(new BulkRequeues.Criteria(request.table(), request.from(), request.to(), request.channel(),
                    request.merchantId(), request.destination(), request.errorContains())).map(Answers::ok);
        }
        if (request.hasFilter()) {
            return bad("with a token, leave the filter out: the token carries the dry run's filter");
        }
        if (!Boolean.FALSE.equals(request.dryRun())) {
            return Uni.createFrom().item(Answers.ok(bulk.recount(request.token())));
        }
        return bulk.apply(request.token(), actor(caller)).map(Answers::accepted);
    }

    @GET
    @Path("audit")
    @Offers(OperatorAction.AUDIT_LIST)
    @APIResponse(responseCode = "200", description = "operator actions that changed state, newest first",
            content = @Content(mediaType = MediaType.APPLICATION_JSON,
                    schema = @Schema(type = SchemaType.ARRAY, implementation = AuditEntry.class)))
    @APIResponse(responseCode = "400", description = "bad limit")
    public Uni<Response> audit(@QueryParam("limit") @DefaultValue("50") int limit,
                               @QueryParam("beforeId") @DefaultValue("" + Long.MAX_VALUE) long beforeId) {
        return audit.list(beforeId, limit).map(Answers::ok);
    }

    /** The audit name of the caller: its token's name (the identity carries nothing else). */
    static String actor(SecurityContext caller) {
        return caller.getUserPrincipal().getName();
    }

    private static Uni<Response> bad(String message) {
        return Uni.createFrom().item(ErrorBody.response(Response.Status.BAD_REQUEST, message));
    }
}
