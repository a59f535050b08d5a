package io.paycallback.console;

import io.paycallback.auth.Roles;
import io.paycallback.ops.OperationsOverview;
import io.paycallback.ops.OperatorAction;
import io.paycallback.ops.OperatorAction.Offers;
import io.quarkus.qute.TemplateInstance;
import io.quarkus.vertx.http.runtime.security.annotation.HttpAuthenticationMechanism;
import io.smallrye.mutiny.Uni;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

/** The console's first page: rows by status per table, the backlog that must be zero, the last hour's refusals. */
@Path(ConsoleSessions.PATH)
@Produces(MediaType.TEXT_HTML)
@RolesAllowed({Roles.OPERATOR, Roles.VIEWER})
@HttpAuthenticationMechanism(ConsoleSessionMechanism.SCHEME)
@ConsoleGuard.Guarded
public class OverviewPage {

    private final OperationsOverview overview;
    private final ConsolePage page;

    public OverviewPage(OperationsOverview overview, ConsolePage page) {
        this.overview = overview;
        this.page = page;
    }

    @GET
    @Offers(OperatorAction.OVERVIEW)
    public Uni<TemplateInstance> overview() {
        return overview.read().map(result -> ConsolePage.page(result,
                read -> Templates.overview(page.page("overview"), ConsoleViews.overview(read))));
    }
}
