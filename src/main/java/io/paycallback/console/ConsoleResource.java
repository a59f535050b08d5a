package io.paycallback.console;

import io.paycallback.api.AdminViews;
import io.paycallback.api.RequeueTokens;
import io.paycallback.api.auth.Roles;
import io.paycallback.inbox.CallbackLog;
import io.paycallback.inbox.CallbackRows;
import io.paycallback.inbox.Quarantine;
import io.paycallback.lease.LeasedTable;
import io.paycallback.lease.LeasedTables;
import io.paycallback.lease.RowStatus;
import io.paycallback.ops.AuditLog;
import io.paycallback.ops.BacklogGauges;
import io.paycallback.ops.DeadLetters;
import io.paycallback.ops.QuarantineReplays;
import io.paycallback.ops.Replays;
import io.paycallback.ops.Requeues;
import io.paycallback.ops.StatusCounts;
import io.paycallback.outbox.Outbox;
import io.quarkus.qute.CheckedTemplate;
import io.quarkus.qute.TemplateInstance;
import io.quarkus.security.identity.SecurityIdentity;
import io.quarkus.vertx.http.runtime.security.annotation.HttpAuthenticationMechanism;
import io.smallrye.mutiny.Uni;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.annotation.security.PermitAll;
import jakarta.annotation.security.RolesAllowed;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.FormParam;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.NewCookie;
import jakarta.ws.rs.core.Response;
import org.jboss.logging.Logger;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.LocalDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The operator console: server-rendered Qute pages with htmx for the buttons, on the application port like the admin
 * API and, like it, never routed by the ingress. It reads and changes state only through the repositories and
 * services the admin API uses, so a requeue from here is the same requeue, audited under the same token name.
 */
@Path(ConsoleSessions.PATH)
@Produces(MediaType.TEXT_HTML)
@RolesAllowed(Roles.OPERATOR)
@HttpAuthenticationMechanism(ConsoleSessionMechanism.SCHEME)
@ConsoleGuard.Guarded
public class ConsoleResource {

    private static final Logger LOG = Logger.getLogger(ConsoleResource.class);

    /** Served by the htmx webjar; its version is the pom's {@code htmx.version}. */
    static final String HTMX = "/webjars/htmx.org/2.0.8/dist/htmx.min.js";
    static final int LIST_LIMIT = 200;

    @CheckedTemplate(basePath = "console")
    static class Templates {
        static native TemplateInstance login(String error);

        static native TemplateInstance overview(ConsoleViews.Page page, ConsoleViews.Overview overview);

        static native TemplateInstance search(ConsoleViews.Page page, String by, String merchant, String q,
                                              List<String> matches, ConsoleViews.Timeline timeline);

        static native TemplateInstance body(String body);

        static native TemplateInstance deadLetters(ConsoleViews.Page page, String table,
                                                   List<ConsoleViews.CallbackLine> callbacks,
                                                   List<ConsoleViews.EventLine> events);

        static native TemplateInstance quarantine(ConsoleViews.Page page, List<ConsoleViews.QuarantineLine> rows);

        static native TemplateInstance bulk(ConsoleViews.Page page);

        static native TemplateInstance dryRun(ConsoleViews.DryRun dryRun);

        static native TemplateInstance audit(ConsoleViews.Page page, List<ConsoleViews.AuditLine> entries, Long olderThan);

        static native TemplateInstance done(ConsoleViews.Done done);
    }

    @Inject
    SecurityIdentity identity;
    @Inject
    ConsoleSessions sessions;
    @Inject
    StatusCounts statusCounts;
    @Inject
    LeasedTables tables;
    @Inject
    BacklogGauges backlog;
    @Inject
    RecentOutcomes recent;
    @Inject
    OrderTimeline timeline;
    @Inject
    CallbackRows callbackRows;
    @Inject
    Outbox outbox;
    @Inject
    Quarantine quarantine;
    @Inject
    QuarantineReplays quarantineReplays;
    @Inject
    AuditLog audit;
    @Inject
    Requeues requeues;
    @Inject
    Replays replays;
    @Inject
    RequeueTokens requeueTokens;
    @Inject
    Pool pool;

    // ---- login ------------------------------------------------------------------------------------------------------

    @GET
    @Path("login")
    @PermitAll
    public TemplateInstance loginForm() {
        return Templates.login(null);
    }

    /** Exchanges an operator token for a session cookie; the token itself is never stored, echoed or logged. */
    @POST
    @Path("login")
    @PermitAll
    @Consumes(MediaType.APPLICATION_FORM_URLENCODED)
    public Response login(@FormParam("token") String token, @Context HttpServerRequest request) {
        Optional<ConsoleSessions.Opened> opened = token == null ? Optional.empty() : sessions.open(token.strip());
        if (opened.isEmpty()) {
            LOG.infof("console login refused from %s", request.remoteAddress());
            return Response.status(Response.Status.UNAUTHORIZED).entity(Templates.login("That is not an operator token.")).build();
        }
        ConsoleSessions.Session session = opened.get().session();
        LOG.infof("console login by %s from %s", session.operator(), request.remoteAddress());
        return Response.seeOther(URI.create(ConsoleSessions.PATH)).cookie(cookie(opened.get().cookie(),
                (int) sessions.ttl().toSeconds(), request.isSSL())).build();
    }

    @POST
    @Path("logout")
    public Response logout(@Context HttpServerRequest request) {
        LOG.infof("console logout by %s", identity.getPrincipal().getName());
        return Response.noContent().header("HX-Redirect", ConsoleSessionMechanism.LOGIN)
                .cookie(cookie("", 0, request.isSSL())).build();
    }

    /** HttpOnly (no script reads it), SameSite=Strict (no other site's page sends it), the console's path only. */
    private static NewCookie cookie(String value, int maxAge, boolean secure) {
        return new NewCookie.Builder(ConsoleSessions.COOKIE).value(value).path(ConsoleSessions.PATH).maxAge(maxAge)
                .httpOnly(true).secure(secure).sameSite(NewCookie.SameSite.STRICT).build();
    }

    // ---- overview ---------------------------------------------------------------------------------------------------

    @GET
    public Uni<TemplateInstance> overview() {
        return Uni.combine().all().unis(statusCounts.count(), backlog.count()).with((counts, gauges) -> {
            List<ConsoleViews.TableCounts> rows = new ArrayList<>();
            long stale = 0;
            long dead = 0;
            for (LeasedTable table : tables.all()) {
                long tableStale = gauges.stalePending().get(table);
                stale += tableStale;
                dead += gauges.deadLetters().get(table);
                rows.add(ConsoleViews.counts(table, counts.get(table), tableStale));
            }
            RecentOutcomes.Recent lastHour = recent.lastHour();
            return Templates.overview(page("overview"), new ConsoleViews.Overview(rows, Long.toString(stale), stale == 0,
                    Long.toString(dead), Long.toString(gauges.quarantined()), Long.toString(lastHour.gateRejections()),
                    Long.toString(lastHour.storeFailures()), lastHour.since().toString()));
        });
    }

    // ---- search and timeline ----------------------------------------------------------------------------------------

    @GET
    @Path("search")
    public Uni<TemplateInstance> search(@QueryParam("by") @DefaultValue("order") String by,
                                        @QueryParam("merchant") @DefaultValue("default") String merchant,
                                        @QueryParam("q") String q) {
        Optional<OrderTimeline.SearchBy> searchBy = OrderTimeline.SearchBy.named(by);
        String number = q == null ? "" : q.strip();
        String merchantId = merchant.isBlank() ? "default" : merchant.strip();
        if (number.isEmpty() || searchBy.isEmpty()) {
            return Uni.createFrom().item(Templates.search(page("search"), by, merchantId, number, List.of(), null));
        }
        return timeline.find(searchBy.get(), merchantId, number).flatMap(matches -> matches.size() == 1
                ? timeline.read(merchantId, matches.get(0)).map(found ->
                        Templates.search(page("search"), by, merchantId, number, matches, found))
                : Uni.createFrom().item(Templates.search(page("search"), by, merchantId, number, matches, null)));
    }

    /** A callback's raw body, on demand: provider input, shown as escaped text and never interpreted. */
    @GET
    @Path("callbacks/{kind}/{id}/body")
    public Uni<Response> body(@PathParam("kind") String kind, @PathParam("id") long id) {
        Optional<CallbackLog> log = log(kind);
        if (log.isEmpty()) {
            return Uni.createFrom().item(Response.status(Response.Status.NOT_FOUND).build());
        }
        return callbackRows.rawBody(log.get(), id).map(body -> body(body, "(blanked by housekeeping)"));
    }

    /** The same for a callback in the archive, which housekeeping fills only with rows whose body it has blanked. */
    @GET
    @Path("archive/callbacks/{kind}/{id}/body")
    public Uni<Response> archivedBody(@PathParam("kind") String kind, @PathParam("id") long id) {
        Optional<CallbackLog> log = log(kind);
        if (log.isEmpty()) {
            return Uni.createFrom().item(Response.status(Response.Status.NOT_FOUND).build());
        }
        return callbackRows.archivedRawBody(log.get(), id).map(body -> body(body,
                "(not kept: housekeeping blanked it before archiving the row)"));
    }

    private static Response body(Optional<byte[]> body, String whenBlank) {
        return body.isEmpty()
                ? Response.status(Response.Status.NOT_FOUND).entity(Templates.body("(no such callback)")).build()
                : Response.ok(Templates.body(body.get().length == 0 ? whenBlank
                : new String(body.get(), StandardCharsets.UTF_8))).build();
    }

    // ---- dead letters and quarantine --------------------------------------------------------------------------------

    @GET
    @Path("dead")
    public Uni<TemplateInstance> deadLetters(@QueryParam("table") @DefaultValue("payment") String table) {
        if ("outbox".equals(table)) {
            return outbox.list(pool, RowStatus.DEAD, LIST_LIMIT).map(events -> Templates.deadLetters(page("dead"), table,
                    List.of(), events.stream().map(event -> ConsoleViews.EventLine.of(event, List.of(), false)).toList()));
        }
        CallbackLog log = log(table).orElse(CallbackLog.PAYMENT);
        return callbackRows.list(log, RowStatus.DEAD, LIST_LIMIT).map(rows -> Templates.deadLetters(page("dead"),
                log.apiName(), rows.stream().map(row -> ConsoleViews.CallbackLine.of(row, false)).toList(), List.of()));
    }

    @POST
    @Path("callbacks/{kind}/{id}/requeue")
    public Uni<TemplateInstance> requeueCallback(@PathParam("kind") String kind, @PathParam("id") long id) {
        Optional<CallbackLog> log = log(kind);
        if (log.isEmpty()) {
            return Uni.createFrom().item(Templates.done(new ConsoleViews.Done(false, "no such kind " + kind)));
        }
        return requeue(log.get().leased(), id);
    }

    @POST
    @Path("outbox/{id}/requeue")
    public Uni<TemplateInstance> requeueEvent(@PathParam("id") long id) {
        return requeue(Outbox.TABLE, id);
    }

    @POST
    @Path("callbacks/{kind}/{id}/replay")
    public Uni<TemplateInstance> replay(@PathParam("kind") String kind, @PathParam("id") long id) {
        Optional<CallbackLog> log = log(kind);
        if (log.isEmpty()) {
            return Uni.createFrom().item(Templates.done(new ConsoleViews.Done(false, "no such kind " + kind)));
        }
        return replays.replay(log.get(), id, operator()).map(outcome -> Templates.done(replayed(outcome, kind, id)));
    }

    private static ConsoleViews.Done replayed(Replays.Outcome outcome, String kind, long id) {
        if (outcome instanceof Replays.Outcome.Queued) {
            return new ConsoleViews.Done(true, "replayed: pending again");
        }
        if (outcome instanceof Replays.Outcome.Conflict conflict) {
            return new ConsoleViews.Done(false, conflict.reason());
        }
        if (outcome instanceof Replays.Outcome.Unparseable unparseable) {
            return new ConsoleViews.Done(false, unparseable.reason());
        }
        return new ConsoleViews.Done(false, "no " + kind + " callback " + id);
    }

    private Uni<TemplateInstance> requeue(LeasedTable table, long id) {
        return requeues.requeue(table, id, operator()).map(requeued -> Templates.done(requeued
                ? new ConsoleViews.Done(true, "requeued: pending again")
                : new ConsoleViews.Done(false, "not a dead letter (any more)")));
    }

    @GET
    @Path("quarantine")
    public Uni<TemplateInstance> quarantine() {
        return quarantine.list(LIST_LIMIT).map(rows -> Templates.quarantine(page("quarantine"),
                rows.stream().map(ConsoleViews.QuarantineLine::of).toList()));
    }

    @POST
    @Path("quarantine/{id}/replay")
    public Uni<TemplateInstance> replayQuarantined(@PathParam("id") long id) {
        return quarantineReplays.replay(id, operator()).map(outcome -> Templates.done(
                outcome instanceof QuarantineReplays.Outcome.Stored stored ? new ConsoleViews.Done(true, stored.detail())
                        : outcome instanceof QuarantineReplays.Outcome.Ignored ignored
                        ? new ConsoleViews.Done(true, "released: " + ignored.reason())
                        : outcome instanceof QuarantineReplays.Outcome.Unparseable unparseable
                        ? new ConsoleViews.Done(false, unparseable.reason())
                        : new ConsoleViews.Done(false, "no quarantined callback " + id)));
    }

    // ---- bulk requeue -----------------------------------------------------------------------------------------------

    @GET
    @Path("bulk")
    public TemplateInstance bulk() {
        return Templates.bulk(page("bulk"));
    }

    /** The dry run: counts what the filter matches and answers the token that requeues exactly those rows. */
    @POST
    @Path("bulk/dry-run")
    @Consumes(MediaType.APPLICATION_FORM_URLENCODED)
    public Uni<TemplateInstance> dryRun(@FormParam("table") String table, @FormParam("from") String from,
                                        @FormParam("to") String to, @FormParam("channel") String channel,
                                        @FormParam("merchantId") String merchantId,
                                        @FormParam("destination") String destination,
                                        @FormParam("errorContains") String errorContains) {
        DeadLetters.Filter filter;
        try {
            filter = new AdminViews.BulkRequeueRequest(table, time(from, "from"), time(to, "to"), blankToNull(channel),
                    blankToNull(merchantId), blankToNull(destination), blankToNull(errorContains), true, null).toFilter();
        } catch (IllegalArgumentException e) {
            return Uni.createFrom().item(Templates.done(new ConsoleViews.Done(false, e.getMessage())));
        }
        return requeues.select(filter).map(selection -> Templates.dryRun(new ConsoleViews.DryRun(
                filter.table().label(), selection.matched(),
                selection.matched() == 0 ? "" : selection.firstId() + ".." + selection.lastId(),
                ConsoleViews.time(selection.cutOff()), requeueTokens.encode(selection))));
    }

    @POST
    @Path("bulk/apply")
    @Consumes(MediaType.APPLICATION_FORM_URLENCODED)
    public Uni<TemplateInstance> apply(@FormParam("token") String token) {
        DeadLetters.Selection selection;
        try {
            selection = requeueTokens.decode(token == null ? "" : token);
        } catch (IllegalArgumentException e) {
            return Uni.createFrom().item(Templates.done(new ConsoleViews.Done(false, e.getMessage())));
        }
        return requeues.apply(selection, operator()).map(applied -> Templates.done(new ConsoleViews.Done(true,
                "requeued " + applied.requeued() + " of the " + selection.matched() + " counted, in " + applied.batches()
                        + " batches (audit #" + applied.auditId() + ")")));
    }

    // ---- audit ------------------------------------------------------------------------------------------------------

    @GET
    @Path("audit")
    public Uni<TemplateInstance> audit(@QueryParam("before") @DefaultValue("" + Long.MAX_VALUE) long before) {
        return audit.list(before, LIST_LIMIT).map(entries -> Templates.audit(page("audit"),
                entries.stream().map(ConsoleViews.AuditLine::of).toList(),
                entries.size() == LIST_LIMIT ? entries.get(entries.size() - 1).id() : null));
    }

    // ---- helpers ----------------------------------------------------------------------------------------------------

    private ConsoleViews.Page page(String section) {
        ConsoleSessions.Session session = identity.getAttribute(ConsoleSessionIdentityProvider.SESSION);
        return new ConsoleViews.Page(session.operator(), session.csrf(), section, HTMX);
    }

    /** The audit name: the operator's token name, as with the bearer token. */
    private String operator() {
        return identity.getPrincipal().getName();
    }

    private static Optional<CallbackLog> log(String kind) {
        return CallbackLog.fromApiName(kind);
    }

    private static LocalDateTime time(String value, String field) {
        if (value == null || value.isBlank()) {
            return null;
        }
        try {
            return LocalDateTime.parse(value.strip());
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException(field + " is a date and time like 2026-01-31T23:00");
        }
    }

    private static String blankToNull(String value) {
        return value == null || value.isBlank() ? null : value.strip();
    }
}
