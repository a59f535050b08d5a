package io.paycallback.console;

import io.paycallback.auth.Roles;
import io.paycallback.ops.OperatorAction;
import io.paycallback.ops.OperatorAction.Offers;
import io.paycallback.ops.QuarantineActions;
import io.quarkus.qute.TemplateInstance;
import io.quarkus.vertx.http.runtime.security.annotation.HttpAuthenticationMechanism;
import io.smallrye.mutiny.Uni;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

/** Signed callbacks that did not parse, and parsing one again once the parser is fixed. */
@Path(ConsoleSessions.PATH)
@Produces(MediaType.TEXT_HTML)
@RolesAllowed({Roles.OPERATOR, Roles.VIEWER})
@HttpAuthenticationMechanism(ConsoleSessionMechanism.SCHEME)
@ConsoleGuard.Guarded
public class QuarantinePage {

    private final QuarantineActions quarantine;
    private final ConsolePage page;

    public QuarantinePage(QuarantineActions quarantine, ConsolePage page) {
        this.quarantine = quarantine;
        this.page = page;
    }

    @GET
    @Path("quarantine")
    @Offers(OperatorAction.QUARANTINE_LIST)
    public Uni<TemplateInstance> quarantine() {
        return quarantine.list(ConsolePage.LIST_LIMIT).map(result -> ConsolePage.page(result, rows ->
                Templates.quarantine(page.page("quarantine"), rows.stream().map(ConsoleViews.QuarantineLine::of).toList())));
    }

    @POST
    @RolesAllowed(Roles.OPERATOR)
    @Path("quarantine/{id}/replay")
    @Offers(OperatorAction.QUARANTINE_REPLAY)
    public Uni<TemplateInstance> replay(@PathParam("id") long id) {
        return quarantine.replay(id, page.operator()).map(ConsolePage::done);
    }
}
