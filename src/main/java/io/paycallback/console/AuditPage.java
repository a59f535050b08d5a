package io.paycallback.console;

import io.paycallback.auth.Roles;
import io.paycallback.ops.AuditLogListing;
import io.paycallback.ops.OperatorAction;
import io.paycallback.ops.OperatorAction.Offers;
import io.quarkus.qute.TemplateInstance;
import io.quarkus.vertx.http.runtime.security.annotation.HttpAuthenticationMechanism;
import io.smallrye.mutiny.Uni;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;

/** The operator actions that changed state, newest first, a page at a time. */
@Path(ConsoleSessions.PATH)
@Produces(MediaType.TEXT_HTML)
@RolesAllowed({Roles.OPERATOR, Roles.VIEWER})
@HttpAuthenticationMechanism(ConsoleSessionMechanism.SCHEME)
@ConsoleGuard.Guarded
public class AuditPage {

    private final AuditLogListing audit;
    private final ConsolePage page;

    public AuditPage(AuditLogListing audit, ConsolePage page) {
        this.audit = audit;
        this.page = page;
    }

    @GET
    @Path("audit")
    @Offers(OperatorAction.AUDIT_LIST)
    public Uni<TemplateInstance> audit(@QueryParam("before") @DefaultValue("" + Long.MAX_VALUE) long before) {
        return audit.list(before, ConsolePage.LIST_LIMIT).map(result -> ConsolePage.page(result, entries ->
                Templates.audit(page.page("audit"), entries.stream().map(ConsoleViews.AuditLine::of).toList(),
                        entries.size() == ConsolePage.LIST_LIMIT ? entries.get(entries.size() - 1).id() : null)));
    }
}
