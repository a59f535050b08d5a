package io.paycallback.console;

import io.paycallback.auth.Roles;
import io.paycallback.ops.OperatorAction;
import io.paycallback.ops.OperatorAction.Offers;
import io.paycallback.ops.TrendActions;
import io.quarkus.qute.TemplateInstance;
import io.quarkus.vertx.http.runtime.security.annotation.HttpAuthenticationMechanism;
import io.smallrye.mutiny.Uni;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;

/** The overview's charts, a fragment the overview loads and a window button reloads. */
@Path(ConsoleSessions.PATH + "/trends")
@Produces(MediaType.TEXT_HTML)
@RolesAllowed({Roles.OPERATOR, Roles.VIEWER})
@HttpAuthenticationMechanism(ConsoleSessionMechanism.SCHEME)
@ConsoleGuard.Guarded
public class TrendsPage {

    private final TrendActions trends;

    public TrendsPage(TrendActions trends) {
        this.trends = trends;
    }

    @GET
    @Offers(OperatorAction.TRENDS)
    public Uni<TemplateInstance> trends(@QueryParam("hours") Integer hours) {
        return trends.read(hours).map(result -> ConsolePage.page(result,
                picture -> Templates.trends(ConsoleViews.TrendCharts.of(picture))));
    }
}
