package io.paycallback.api;

import io.paycallback.auth.Roles;
import io.paycallback.ops.OperatorAction;
import io.paycallback.ops.OperatorAction.Offers;
import io.paycallback.ops.StatementActions;
import io.paycallback.statement.Discrepancies;
import io.paycallback.statement.StatementRuns;
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
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.security.SecurityRequirement;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import java.util.Locale;

/**
 * The statement reconciliation for operators: runs per day and provider with both sides' totals, discrepancies with
 * filters, resolving one with a note, and running a date again ({@link StatementActions}, which audits the changes).
 */
@Path("/admin/statements")
@Produces(MediaType.APPLICATION_JSON)
@RolesAllowed({Roles.OPERATOR, Roles.VIEWER})
@OperatorAccessLog.Logged
@Tag(name = "statements")
@SecurityRequirement(name = ApiDocument.BEARER)
@APIResponse(responseCode = "401", description = "no or unknown bearer token")
@APIResponse(responseCode = "403", description = "the caller is not an operator (a viewer may only read), or is scoped to merchants")
public class StatementResource {

    /** A date to run again; {@code merchantId} defaults to {@code default}. */
    @Schema(name = "StatementRerunRequest")
    public record RerunRequest(String merchantId, String channel, String billDate) {
    }

    @Schema(name = "StatementRerun")
    public record RerunAnswer(String outcome, long auditId) {
    }

    private final StatementActions actions;

    public StatementResource(StatementActions actions) {
        this.actions = actions;
    }

    @GET
    @Path("runs")
    @Offers(OperatorAction.STATEMENT_RUNS)
    @APIResponse(responseCode = "200", description = "runs of the dates, newest date first, with both sides' totals",
            content = @Content(mediaType = MediaType.APPLICATION_JSON,
                    schema = @Schema(type = SchemaType.ARRAY, implementation = StatementRuns.Run.class)))
    @APIResponse(responseCode = "400", description = "bad dates, channel or limit",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = ErrorBody.class)))
    public Uni<Response> runs(@QueryParam("from") String from, @QueryParam("to") String to,
                              @QueryParam("channel") String channel, @QueryParam("merchantId") String merchantId,
                              @QueryParam("limit") @DefaultValue("100") int limit) {
        return actions.runs(from, to, channel, merchantId, limit).map(Answers::ok);
    }

    @GET
    @Path("discrepancies")
    @Offers(OperatorAction.STATEMENT_DISCREPANCIES)
    @APIResponse(responseCode = "200", description = "newest first; beforeId pages back",
            content = @Content(mediaType = MediaType.APPLICATION_JSON,
                    schema = @Schema(type = SchemaType.ARRAY, implementation = Discrepancies.Discrepancy.class)))
    @APIResponse(responseCode = "400", description = "bad filter or limit",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = ErrorBody.class)))
    public Uni<Response> discrepancies(@QueryParam("kind") String kind, @QueryParam("state") String state,
                                       @QueryParam("channel") String channel, @QueryParam("billDate") String billDate,
                                       @QueryParam("runId") Long runId,
                                       @QueryParam("beforeId") @DefaultValue("9223372036854775807") long beforeId,
                                       @QueryParam("limit") @DefaultValue("100") int limit) {
        return actions.discrepancies(new StatementActions.DiscrepancyCriteria(kind, state, channel, billDate, runId),
                beforeId, limit).map(Answers::ok);
    }

    @POST
    @RolesAllowed(Roles.OPERATOR)
    @Path("discrepancies/{id}/resolve")
    @Consumes(MediaType.APPLICATION_JSON)
    @Offers(OperatorAction.STATEMENT_RESOLVE)
    @APIResponse(responseCode = "200", description = "resolved with the note, audited",
            content = @Content(mediaType = MediaType.APPLICATION_JSON,
                    schema = @Schema(implementation = Discrepancies.Discrepancy.class)))
    @APIResponse(responseCode = "400", description = "no note",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = ErrorBody.class)))
    @APIResponse(responseCode = "404", description = "no such discrepancy",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = ErrorBody.class)))
    @APIResponse(responseCode = "409", description = "repaired or resolved already",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = ErrorBody.class)))
    public Uni<Response> resolve(@PathParam("id") long id, AdminViews.NoteRequest request, @Context SecurityContext caller) {
        return actions.resolve(id, request == null ? null : request.note(), AdminResource.actor(caller)).map(Answers::ok);
    }

    @POST
    @RolesAllowed(Roles.OPERATOR)
    @Path("runs")
    @Consumes(MediaType.APPLICATION_JSON)
    @Offers(OperatorAction.STATEMENT_RERUN)
    @APIResponse(responseCode = "200", description = "enrolled, requeued, or already pending; the scanner runs it",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = RerunAnswer.class)))
    @APIResponse(responseCode = "400", description = "bad channel or date, or no API keys for the provider",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = ErrorBody.class)))
    public Uni<Response> rerun(RerunRequest request, @Context SecurityContext caller) {
        RerunRequest asked = request == null ? new RerunRequest(null, null, null) : request;
        return actions.rerun(asked.merchantId(), asked.channel(), asked.billDate(), AdminResource.actor(caller))
                .map(result -> Answers.json(result, rerun -> Response.ok(
                        new RerunAnswer(rerun.outcome().name().toLowerCase(Locale.ROOT), rerun.auditId())).build()));
    }
}
