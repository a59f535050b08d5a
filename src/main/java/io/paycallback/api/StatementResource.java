package io.paycallback.api;

import io.paycallback.api.auth.Roles;
import io.paycallback.config.PayCallbackConfig;
import io.paycallback.ops.StatementActions;
import io.paycallback.provider.ProviderClients;
import io.paycallback.statement.Discrepancies;
import io.paycallback.statement.DiscrepancyKind;
import io.paycallback.statement.DiscrepancyState;
import io.paycallback.statement.StatementRuns;
import io.paycallback.trade.ChannelId;
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

import java.time.Clock;
import java.time.LocalDate;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.Optional;

/**
 * The statement reconciliation for operators: runs per day and provider with both sides' totals, discrepancies with
 * filters, resolving one with a note, and running a date again. Changes are audited ({@link StatementActions}).
 */
@Path("/admin/statements")
@Produces(MediaType.APPLICATION_JSON)
@RolesAllowed(Roles.OPERATOR)
@OperatorAccessLog.Logged
@Tag(name = "statements")
@SecurityRequirement(name = ApiDocument.BEARER)
@APIResponse(responseCode = "401", description = "no or unknown bearer token")
@APIResponse(responseCode = "403", description = "the token is not an operator's")
public class StatementResource {

    private static final int MAX_LIMIT = 500;
    private static final int MAX_DAYS = 93;

    /** A date to run again; {@code merchantId} defaults to {@code default}. */
    @Schema(name = "StatementRerunRequest")
    public record RerunRequest(String merchantId, String channel, String billDate) {
    }

    @Schema(name = "StatementRerun")
    public record RerunAnswer(String outcome, long auditId) {
    }

    @Schema(name = "StatementResolveRequest")
    public record ResolveRequest(String note) {
    }

    private final StatementRuns runs;
    private final Discrepancies discrepancies;
    private final StatementActions actions;
    private final ProviderClients providers;
    private final Clock clock;

    public StatementResource(StatementRuns runs, Discrepancies discrepancies, StatementActions actions,
                             ProviderClients providers, Clock clock) {
        this.runs = runs;
        this.discrepancies = discrepancies;
        this.actions = actions;
        this.providers = providers;
        this.clock = clock;
    }

    @GET
    @Path("runs")
    @APIResponse(responseCode = "200", description = "runs of the dates, newest date first, with both sides' totals",
            content = @Content(mediaType = MediaType.APPLICATION_JSON,
                    schema = @Schema(type = SchemaType.ARRAY, implementation = StatementRuns.Run.class)))
    @APIResponse(responseCode = "400", description = "bad dates, channel or limit",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = ErrorBody.class)))
    public Uni<Response> runs(@QueryParam("from") String from, @QueryParam("to") String to,
                              @QueryParam("channel") String channel, @QueryParam("merchantId") String merchantId,
                              @QueryParam("limit") @DefaultValue("100") int limit) {
        Optional<LocalDate> last = to == null ? Optional.of(LocalDate.now(clock)) : date(to);
        Optional<LocalDate> first = from == null ? last.map(day -> day.minusDays(30)) : date(from);
        Optional<ChannelId> provider = channel == null ? Optional.empty() : ChannelId.fromPath(channel);
        if (first.isEmpty() || last.isEmpty() || first.get().isAfter(last.get())
                || first.get().plusDays(MAX_DAYS).isBefore(last.get()) || (channel != null && provider.isEmpty())
                || limit < 1 || limit > MAX_LIMIT) {
            return bad("from/to are yyyy-MM-dd at most " + MAX_DAYS + " days apart, channel is wxpay|alipay|stripe,"
                    + " limit is 1.." + MAX_LIMIT);
        }
        return runs.list(first.get(), last.get(), provider.orElse(null), merchantId, limit)
                .map(list -> Response.ok(list).build());
    }

    @GET
    @Path("discrepancies")
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
        Optional<DiscrepancyKind> kindFilter = kind == null ? Optional.empty() : kind(kind);
        Optional<DiscrepancyState> stateFilter = state == null ? Optional.empty() : state(state);
        Optional<ChannelId> provider = channel == null ? Optional.empty() : ChannelId.fromPath(channel);
        Optional<LocalDate> day = billDate == null ? Optional.empty() : date(billDate);
        if ((kind != null && kindFilter.isEmpty()) || (state != null && stateFilter.isEmpty())
                || (channel != null && provider.isEmpty()) || (billDate != null && day.isEmpty())
                || limit < 1 || limit > MAX_LIMIT) {
            return bad("kind is missing_here|not_registered|missing_at_provider|amount_differs|state_differs, state is"
                    + " waiting|open|repaired|resolved, channel is wxpay|alipay|stripe, billDate is yyyy-MM-dd, limit is"
                    + " 1.." + MAX_LIMIT);
        }
        return discrepancies.list(new Discrepancies.Filter(kindFilter.orElse(null), stateFilter.orElse(null),
                        provider.orElse(null), day.orElse(null), runId), beforeId, limit)
                .map(list -> Response.ok(list).build());
    }

    @POST
    @Path("discrepancies/{id}/resolve")
    @Consumes(MediaType.APPLICATION_JSON)
    @APIResponse(responseCode = "200", description = "resolved with the note, audited",
            content = @Content(mediaType = MediaType.APPLICATION_JSON,
                    schema = @Schema(implementation = Discrepancies.Discrepancy.class)))
    @APIResponse(responseCode = "400", description = "no note",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = ErrorBody.class)))
    @APIResponse(responseCode = "404", description = "no such discrepancy",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = ErrorBody.class)))
    @APIResponse(responseCode = "409", description = "repaired or resolved already",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = ErrorBody.class)))
    public Uni<Response> resolve(@PathParam("id") long id, ResolveRequest request, @Context SecurityContext caller) {
        if (request == null || request.note() == null || request.note().isBlank()) {
            return bad("a resolution needs a note: what was found and done");
        }
        return actions.resolve(id, request.note().strip(), actor(caller)).map(resolution -> {
            if (resolution instanceof StatementActions.Resolution.Resolved resolved) {
                return Response.ok(resolved.discrepancy()).build();
            }
            return resolution instanceof StatementActions.Resolution.NotOpen
                    ? ErrorBody.response(Response.Status.CONFLICT, "discrepancy #" + id + " is not open")
                    : ErrorBody.response(Response.Status.NOT_FOUND, "no discrepancy #" + id);
        });
    }

    @POST
    @Path("runs")
    @Consumes(MediaType.APPLICATION_JSON)
    @APIResponse(responseCode = "200", description = "enrolled, requeued, or already pending; the scanner runs it",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = RerunAnswer.class)))
    @APIResponse(responseCode = "400", description = "bad channel or date, or no API keys for the provider",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = ErrorBody.class)))
    public Uni<Response> rerun(RerunRequest request, @Context SecurityContext caller) {
        Optional<ChannelId> channel = request == null || request.channel() == null ? Optional.empty()
                : ChannelId.fromPath(request.channel());
        Optional<LocalDate> date = request == null || request.billDate() == null ? Optional.empty() : date(request.billDate());
        String merchantId = request == null || request.merchantId() == null ? PayCallbackConfig.DEFAULT_MERCHANT
                : request.merchantId();
        if (channel.isEmpty() || date.isEmpty()) {
            return bad("channel is wxpay|alipay|stripe and billDate is yyyy-MM-dd");
        }
        if (providers.statements(channel.get(), merchantId).isEmpty()) {
            return bad("merchant " + merchantId + " has no API keys for " + channel.get().path());
        }
        return actions.rerun(merchantId, channel.get(), date.get(), actor(caller)).map(rerun -> Response.ok(
                new RerunAnswer(rerun.outcome().name().toLowerCase(Locale.ROOT), rerun.auditId())).build());
    }

    static Optional<LocalDate> date(String text) {
        try {
            return Optional.of(LocalDate.parse(text));
        } catch (DateTimeParseException e) {
            return Optional.empty();
        }
    }

    static Optional<DiscrepancyKind> kind(String text) {
        try {
            return Optional.of(DiscrepancyKind.valueOf(text.toUpperCase(Locale.ROOT)));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    static Optional<DiscrepancyState> state(String text) {
        try {
            return Optional.of(DiscrepancyState.valueOf(text.toUpperCase(Locale.ROOT)));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    private static Uni<Response> bad(String message) {
        return Uni.createFrom().item(ErrorBody.response(Response.Status.BAD_REQUEST, message));
    }

    private static String actor(SecurityContext caller) {
        return caller.getUserPrincipal().getName();
    }
}
