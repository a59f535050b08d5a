package io.paycallback.console;

import io.paycallback.auth.Roles;
import io.paycallback.ops.OperatorAction;
import io.paycallback.ops.OperatorAction.Offers;
import io.paycallback.ops.StatementActions;
import io.quarkus.qute.TemplateInstance;
import io.quarkus.vertx.http.runtime.security.annotation.HttpAuthenticationMechanism;
import io.smallrye.mutiny.Uni;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.FormParam;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;


import static io.paycallback.console.ConsolePage.blankToNull;

/**
 * The Statements page: the runs of the default window with both sides' totals and a clear state, discrepancies with
 * filters (open ones unless told otherwise), resolving one with a note and running a date again.
 */
@Path(ConsoleSessions.PATH + "/statements")
@Produces(MediaType.TEXT_HTML)
@RolesAllowed({Roles.OPERATOR, Roles.VIEWER})
@HttpAuthenticationMechanism(ConsoleSessionMechanism.SCHEME)
@ConsoleGuard.Guarded
public class StatementsPage {

    private final StatementActions actions;
    private final ConsolePage page;

    public StatementsPage(StatementActions actions, ConsolePage page) {
        this.actions = actions;
        this.page = page;
    }

    @GET
    @Offers({OperatorAction.STATEMENT_RUNS, OperatorAction.STATEMENT_DISCREPANCIES})
    public Uni<TemplateInstance> page(@QueryParam("kind") String kind, @QueryParam("state") String state,
                                      @QueryParam("channel") String channel, @QueryParam("date") String date) {
        ConsoleViews.StatementFilter shown = new ConsoleViews.StatementFilter(text(kind),
                state == null ? "open" : text(state), text(channel), text(date));
        StatementActions.DiscrepancyCriteria criteria = new StatementActions.DiscrepancyCriteria(blankToNull(kind),
                blankToNull(shown.state()), blankToNull(channel), blankToNull(date), null);
        return actions.runs(null, null, blankToNull(channel), null, ConsolePage.LIST_LIMIT)
                .flatMap(runs -> actions.discrepancies(criteria, Long.MAX_VALUE, ConsolePage.LIST_LIMIT)
                        .map(found -> ConsolePage.page(runs, runList -> ConsolePage.page(found, list ->
                                Templates.statements(page.page("statements"), shown,
                                        runList.stream().map(ConsoleViews.RunLine::of).toList(),
                                        list.stream().map(ConsoleViews.DiscrepancyLine::of).toList())))));
    }

    @POST
    @RolesAllowed(Roles.OPERATOR)
    @Path("discrepancies/{id}/resolve")
    @Consumes(MediaType.APPLICATION_FORM_URLENCODED)
    @Offers(OperatorAction.STATEMENT_RESOLVE)
    public Uni<TemplateInstance> resolve(@PathParam("id") long id, @FormParam("note") String note) {
        return actions.resolve(id, note, page.operator()).map(ConsolePage::done);
    }

    @POST
    @RolesAllowed(Roles.OPERATOR)
    @Path("runs")
    @Consumes(MediaType.APPLICATION_FORM_URLENCODED)
    @Offers(OperatorAction.STATEMENT_RERUN)
    public Uni<TemplateInstance> rerun(@FormParam("channel") String channel, @FormParam("billDate") String billDate,
                                       @FormParam("merchantId") String merchantId) {
        return actions.rerun(blankToNull(merchantId), blankToNull(channel), blankToNull(billDate), page.operator())
                .map(ConsolePage::done);
    }

    private static String text(String value) {
        return value == null ? "" : value.strip();
    }
}
