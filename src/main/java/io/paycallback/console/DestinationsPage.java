package io.paycallback.console;

import io.paycallback.auth.Roles;
import io.paycallback.ops.DestinationActions;
import io.paycallback.ops.OperatorAction;
import io.paycallback.ops.OperatorAction.Offers;
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
import jakarta.ws.rs.core.MediaType;

import java.util.List;

/** The destinations of downstream events: state and backlog, disable, enable, probe now, and a counted replay. */
@Path(ConsoleSessions.PATH + "/destinations")
@Produces(MediaType.TEXT_HTML)
@RolesAllowed({Roles.OPERATOR, Roles.VIEWER})
@HttpAuthenticationMechanism(ConsoleSessionMechanism.SCHEME)
@ConsoleGuard.Guarded
public class DestinationsPage {

    private final DestinationActions destinations;
    private final ConsolePage page;

    public DestinationsPage(DestinationActions destinations, ConsolePage page) {
        this.destinations = destinations;
        this.page = page;
    }

    @GET
    @Offers(OperatorAction.DESTINATION_LIST)
    public Uni<TemplateInstance> list() {
        return destinations.list().map(result -> ConsolePage.page(result, views -> Templates.destinations(
                page.page("destinations"), views.stream().map(ConsoleViews.DestinationLine::of).toList())));
    }

    @GET
    @Path("{name}")
    @Offers(OperatorAction.DESTINATION_INSPECT)
    public Uni<TemplateInstance> get(@PathParam("name") String name) {
        return destinations.get(name).map(result -> ConsolePage.page(result, view -> Templates.destinations(
                page.page("destinations"), List.of(ConsoleViews.DestinationLine.of(view)))));
    }

    @POST
    @RolesAllowed(Roles.OPERATOR)
    @Path("{name}/disable")
    @Offers(OperatorAction.DESTINATION_DISABLE)
    public Uni<TemplateInstance> disable(@PathParam("name") String name) {
        return destinations.disable(name, page.operator()).map(ConsolePage::done);
    }

    @POST
    @RolesAllowed(Roles.OPERATOR)
    @Path("{name}/enable")
    @Offers(OperatorAction.DESTINATION_ENABLE)
    public Uni<TemplateInstance> enable(@PathParam("name") String name) {
        return destinations.enable(name, page.operator()).map(ConsolePage::done);
    }

    @POST
    @RolesAllowed(Roles.OPERATOR)
    @Path("{name}/probe")
    @Offers(OperatorAction.DESTINATION_PROBE)
    public Uni<TemplateInstance> probe(@PathParam("name") String name) {
        return destinations.probe(name, page.operator()).map(ConsolePage::done);
    }

    /** The dry run: what a replay would send, and the plan its button carries out. */
    @POST
    @RolesAllowed(Roles.OPERATOR)
    @Path("replay/dry-run")
    @Consumes(MediaType.APPLICATION_FORM_URLENCODED)
    @Offers(OperatorAction.DESTINATION_REPLAY_DRY_RUN)
    public Uni<TemplateInstance> dryRun(@FormParam("destination") String destination, @FormParam("since") String since) {
        return destinations.previewReplay(destination, since, null).map(result -> ConsolePage.page(result,
                plan -> Templates.replayPlan(ConsoleViews.ReplayPlan.of(plan))));
    }

    @POST
    @RolesAllowed(Roles.OPERATOR)
    @Path("replay/apply")
    @Consumes(MediaType.APPLICATION_FORM_URLENCODED)
    @Offers(OperatorAction.DESTINATION_REPLAY_APPLY)
    public Uni<TemplateInstance> apply(@FormParam("destination") String destination, @FormParam("since") String since,
                                       @FormParam("upToId") long upToId) {
        return destinations.replay(destination, since, upToId, page.operator()).map(ConsolePage::done);
    }
}
