package io.paycallback.console;

import io.paycallback.auth.Roles;
import io.paycallback.inbox.CallbackRow;
import io.paycallback.ops.ActionResult;
import io.paycallback.ops.CallbackActions;
import io.paycallback.ops.DeadLetterActions;
import io.paycallback.ops.EventActions;
import io.paycallback.ops.OperatorAction;
import io.paycallback.ops.OperatorAction.Offers;
import io.quarkus.qute.TemplateInstance;
import io.quarkus.vertx.http.runtime.security.annotation.HttpAuthenticationMechanism;
import io.smallrye.mutiny.Uni;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.FormParam;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import java.util.List;

import static io.paycallback.console.ConsolePage.blankToNull;

/**
 * Dead letters of every leased table, one tab each: callbacks and events with their details, the other tables by what
 * every table has. Each can be requeued, or resolved with a note; a callback can be replayed from its raw body.
 */
@Path(ConsoleSessions.PATH)
@Produces(MediaType.TEXT_HTML)
@RolesAllowed({Roles.OPERATOR, Roles.VIEWER})
@HttpAuthenticationMechanism(ConsoleSessionMechanism.SCHEME)
@ConsoleGuard.Guarded
public class DeadLetterPage {

    private static final String OUTBOX = "outbox";

    private final CallbackActions callbacks;
    private final DeadLetterActions deadLetters;
    private final EventActions events;
    private final ConsolePage page;

    public DeadLetterPage(CallbackActions callbacks, DeadLetterActions deadLetters,
                          EventActions events, ConsolePage page) {
        this.callbacks = callbacks;
        this.deadLetters = deadLetters;
        this.events = events;
        this.page = page;
    }

    @GET
    @Path("dead")
    @Offers({OperatorAction.DEAD_LETTER_LIST, OperatorAction.CALLBACK_LIST, OperatorAction.EVENT_LIST})
    public Uni<TemplateInstance> deadLetters(@QueryParam("table") @DefaultValue("payment") String table,
                                             @QueryParam("merchant") String merchant, @QueryParam("type") String type,
                                             @QueryParam("destination") String destination) {
        List<String> labels = deadLetters.tables();
        if (OUTBOX.equals(table)) {
            return events.list(new EventActions.Criteria(null, blankToNull(merchant), "dead", blankToNull(type),
                    blankToNull(destination)), ConsolePage.LIST_LIMIT).map(result -> ConsolePage.page(result, found ->
                    Templates.deadLetters(page.page("dead"), table, labels, List.of(),
                            found.stream().map(event -> ConsoleViews.EventLine.of(event, List.of(), false)).toList(),
                            List.of())));
        }
        if ("payment".equals(table) || "refund".equals(table)) {
            return callbacks.list(table, "dead", ConsolePage.LIST_LIMIT).map(result -> ConsolePage.page(result, rows ->
                    Templates.deadLetters(page.page("dead"), table, labels,
                            rows.stream().map(row -> ConsoleViews.CallbackLine.of(row, false)).toList(), List.of(),
                            List.of())));
        }
        return deadLetters.list(table, ConsolePage.LIST_LIMIT).map(result -> ConsolePage.page(result, rows ->
                Templates.deadLetters(page.page("dead"), table, labels, List.of(), List.of(),
                        rows.stream().map(row -> ConsoleViews.DeadLine.of(table, row)).toList())));
    }

    /**
     * A callback's raw body, on demand, live or archived: provider input, shown as escaped text and never interpreted.
     */
    @GET
    @Path("callbacks/{kind}/{id}/body")
    @Offers(OperatorAction.CALLBACK_INSPECT)
    public Uni<Response> body(@PathParam("kind") String kind, @PathParam("id") long id) {
        return callbacks.inspect(kind, id, true).map(DeadLetterPage::body);
    }

    private static Response body(ActionResult<CallbackRow> result) {
        if (result instanceof ActionResult.Done<CallbackRow> done) {
            String body = done.value().rawBody();
            return Response.ok(Templates.body(body.isEmpty() ? "(not kept: housekeeping blanked it)" : body)).build();
        }
        return Response.status(Response.Status.NOT_FOUND).entity(ConsolePage.done(result)).build();
    }

    /** An event's delivery attempts, on demand, live or archived with the event. */
    @GET
    @Path("outbox/{id}/attempts")
    @Offers(OperatorAction.EVENT_ATTEMPTS)
    public Uni<TemplateInstance> attempts(@PathParam("id") long id) {
        return events.attempts(id).map(result -> ConsolePage.page(result, found ->
                Templates.attempts(found.stream().map(ConsoleViews.AttemptLine::of).toList())));
    }

    @POST
    @RolesAllowed(Roles.OPERATOR)
    @Path("callbacks/{kind}/{id}/requeue")
    @Offers(OperatorAction.REQUEUE)
    public Uni<TemplateInstance> requeueCallback(@PathParam("kind") String kind, @PathParam("id") long id) {
        return deadLetters.requeue(kind, id, page.operator()).map(ConsolePage::done);
    }

    @POST
    @RolesAllowed(Roles.OPERATOR)
    @Path("outbox/{id}/requeue")
    @Offers(OperatorAction.REQUEUE)
    public Uni<TemplateInstance> requeueEvent(@PathParam("id") long id) {
        return deadLetters.requeue(OUTBOX, id, page.operator()).map(ConsolePage::done);
    }

    @POST
    @RolesAllowed(Roles.OPERATOR)
    @Path("dead-letters/{table}/{id}/requeue")
    @Offers(OperatorAction.REQUEUE)
    public Uni<TemplateInstance> requeue(@PathParam("table") String table, @PathParam("id") long id) {
        return deadLetters.requeue(table, id, page.operator()).map(ConsolePage::done);
    }

    @POST
    @RolesAllowed(Roles.OPERATOR)
    @Path("dead-letters/{table}/{id}/resolve")
    @Consumes(MediaType.APPLICATION_FORM_URLENCODED)
    @Offers(OperatorAction.DEAD_LETTER_RESOLVE)
    public Uni<TemplateInstance> resolve(@PathParam("table") String table, @PathParam("id") long id,
                                         @FormParam("note") String note) {
        return deadLetters.resolve(table, id, note, page.operator()).map(ConsolePage::done);
    }

    @POST
    @RolesAllowed(Roles.OPERATOR)
    @Path("callbacks/{kind}/{id}/replay")
    @Offers(OperatorAction.CALLBACK_REPLAY)
    public Uni<TemplateInstance> replay(@PathParam("kind") String kind, @PathParam("id") long id) {
        return callbacks.replay(kind, id, page.operator()).map(ConsolePage::done);
    }
}
