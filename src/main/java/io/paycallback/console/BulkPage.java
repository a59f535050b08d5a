package io.paycallback.console;

import io.paycallback.auth.Roles;
import io.paycallback.ops.BulkRequeues;
import io.paycallback.ops.DeadLetterActions;
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
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

import java.time.LocalDateTime;
import java.time.format.DateTimeParseException;

import static io.paycallback.console.ConsolePage.blankToNull;

/** Dead letters requeued by filter: count first (a dry run changes nothing), then requeue exactly the rows counted. */
@Path(ConsoleSessions.PATH + "/bulk")
@Produces(MediaType.TEXT_HTML)
@RolesAllowed({Roles.OPERATOR, Roles.VIEWER})
@HttpAuthenticationMechanism(ConsoleSessionMechanism.SCHEME)
@ConsoleGuard.Guarded
public class BulkPage {

    private final BulkRequeues bulk;
    private final DeadLetterActions deadLetters;
    private final ConsolePage page;

    public BulkPage(BulkRequeues bulk, DeadLetterActions deadLetters, ConsolePage page) {
        this.bulk = bulk;
        this.deadLetters = deadLetters;
        this.page = page;
    }

    @GET
    @Offers({})
    public TemplateInstance form() {
        return Templates.bulk(page.page("bulk"), deadLetters.tables());
    }

    /** The dry run: counts what the filter matches and answers the token that requeues exactly those rows. */
    @POST
    @RolesAllowed(Roles.OPERATOR)
    @Path("dry-run")
    @Consumes(MediaType.APPLICATION_FORM_URLENCODED)
    @Offers(OperatorAction.BULK_REQUEUE_DRY_RUN)
    public Uni<TemplateInstance> dryRun(@FormParam("table") String table, @FormParam("from") String from,
                                        @FormParam("to") String to, @FormParam("channel") String channel,
                                        @FormParam("merchantId") String merchantId,
                                        @FormParam("destination") String destination,
                                        @FormParam("errorContains") String errorContains) {
        BulkRequeues.Criteria criteria;
        try {
            criteria = new BulkRequeues.Criteria(table, time(from, "from"), time(to, "to"), blankToNull(channel),
                    blankToNull(merchantId), blankToNull(destination), blankToNull(errorContains));
        } catch (IllegalArgumentException e) {
            return Uni.createFrom().item(Templates.done(new ConsoleViews.Done(false, e.getMessage())));
        }
        return bulk.dryRun(criteria).map(result -> ConsolePage.page(result, BulkPage::dryRun));
    }

    private static TemplateInstance dryRun(BulkRequeues.DryRun dryRun) {
        return Templates.dryRun(new ConsoleViews.DryRun(dryRun.table(), dryRun.matched(),
                dryRun.matched() == 0 ? "" : dryRun.firstId() + ".." + dryRun.lastId(),
                ConsoleViews.time(dryRun.diedBefore()), dryRun.token()));
    }

    /** The dry run a token stands for, as it was counted: what an apply of it would requeue. */
    @POST
    @RolesAllowed(Roles.OPERATOR)
    @Path("recount")
    @Consumes(MediaType.APPLICATION_FORM_URLENCODED)
    @Offers(OperatorAction.BULK_REQUEUE_RECOUNT)
    public TemplateInstance recount(@FormParam("token") String token) {
        return ConsolePage.page(bulk.recount(token), BulkPage::dryRun);
    }

    @POST
    @RolesAllowed(Roles.OPERATOR)
    @Path("apply")
    @Consumes(MediaType.APPLICATION_FORM_URLENCODED)
    @Offers(OperatorAction.BULK_REQUEUE_APPLY)
    public Uni<TemplateInstance> apply(@FormParam("token") String token) {
        return bulk.apply(token, page.operator()).map(ConsolePage::done);
    }

    /** A form's datetime-local field; empty means no bound. */
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
}
