package io.paycallback.api;

import io.paycallback.auth.Roles;
import io.paycallback.delivery.DestinationResults;
import io.paycallback.delivery.DestinationView;
import io.paycallback.ops.DestinationActions;
import io.paycallback.ops.OperatorAction;
import io.paycallback.ops.OperatorAction.Offers;
import io.smallrye.mutiny.Uni;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
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

/**
 * The destinations of downstream events for operators ({@link DestinationActions}, which audits the changes): state,
 * backlog and circuit of each, disable and enable, a probe now, and a replay since a time.
 */
@Path("/admin/destinations")
@Produces(MediaType.APPLICATION_JSON)
@RolesAllowed({Roles.OPERATOR, Roles.VIEWER})
@OperatorAccessLog.Logged
@Tag(name = "destinations")
@SecurityRequirement(name = ApiDocument.BEARER)
@APIResponse(responseCode = "401", description = "no or unknown bearer token")
@APIResponse(responseCode = "403", description = "the caller is not an operator (a viewer may only read), or is scoped to merchants")
public class DestinationResource {

    /**
     * A replay. Without {@code upToId} it is a dry run; with a dry run's {@code upToId} and {@code "dryRun": false} it
     * sends that dry run's events again, never one written after it.
     */
    @Schema(name = "DestinationReplayRequest")
    public record ReplayRequest(
            @Schema(description = "replay events written at or after this time (database clock, as the API shows times)",
                    required = true, example = "2026-01-31T23:00") String since,
            @Schema(description = "the dry run's upToId") Long upToId,
            @Schema(description = "true unless told otherwise", defaultValue = "true") Boolean dryRun) {
    }

    private final DestinationActions actions;

    public DestinationResource(DestinationActions actions) {
        this.actions = actions;
    }

    @GET
    @Offers(OperatorAction.DESTINATION_LIST)
    @APIResponse(responseCode = "200", description = "every configured destination: state, backlog, last delivery",
            content = @Content(mediaType = MediaType.APPLICATION_JSON,
                    schema = @Schema(type = SchemaType.ARRAY, implementation = DestinationView.class)))
    public Uni<Response> list() {
        return actions.list().map(Answers::ok);
    }

    @GET
    @Path("{name}")
    @Offers(OperatorAction.DESTINATION_INSPECT)
    @APIResponse(responseCode = "200", description = "the destination",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = DestinationView.class)))
    @APIResponse(responseCode = "404", description = "no destination of that name is configured")
    public Uni<Response> get(@PathParam("name") String name) {
        return actions.get(name).map(Answers::ok);
    }

    @POST
    @RolesAllowed(Roles.OPERATOR)
    @Path("{name}/disable")
    @Offers(OperatorAction.DESTINATION_DISABLE)
    @APIResponse(responseCode = "200", description = "disabled on every instance (or already): its events wait, parked",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = DestinationView.class)))
    @APIResponse(responseCode = "404", description = "no destination of that name is configured")
    public Uni<Response> disable(@PathParam("name") String name, @Context SecurityContext caller) {
        return actions.disable(name, AdminResource.actor(caller)).map(Answers::ok);
    }

    @POST
    @RolesAllowed(Roles.OPERATOR)
    @Path("{name}/enable")
    @Offers(OperatorAction.DESTINATION_ENABLE)
    @APIResponse(responseCode = "200", description = "delivered to again (or already): its waiting events are due",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = DestinationView.class)))
    @APIResponse(responseCode = "404", description = "no destination of that name is configured")
    public Uni<Response> enable(@PathParam("name") String name, @Context SecurityContext caller) {
        return actions.enable(name, AdminResource.actor(caller)).map(Answers::ok);
    }

    @POST
    @RolesAllowed(Roles.OPERATOR)
    @Path("{name}/probe")
    @Offers(OperatorAction.DESTINATION_PROBE)
    @APIResponse(responseCode = "200", description = "the oldest waiting event was sent: delivered closes the circuit",
            content = @Content(mediaType = MediaType.APPLICATION_JSON,
                    schema = @Schema(implementation = DestinationActions.Probed.class)))
    @APIResponse(responseCode = "404", description = "no destination of that name is configured")
    @APIResponse(responseCode = "409", description = "its circuit is closed, or no event waits to be sent")
    public Uni<Response> probe(@PathParam("name") String name, @Context SecurityContext caller) {
        return actions.probe(name, AdminResource.actor(caller)).map(Answers::ok);
    }

    @POST
    @RolesAllowed(Roles.OPERATOR)
    @Path("{name}/replay")
    @Consumes(MediaType.APPLICATION_JSON)
    @Offers({OperatorAction.DESTINATION_REPLAY_DRY_RUN, OperatorAction.DESTINATION_REPLAY_APPLY})
    @APIResponse(responseCode = "200", description = "a dry run (the default): what a replay would send, and its upToId",
            content = @Content(mediaType = MediaType.APPLICATION_JSON,
                    schema = @Schema(implementation = DestinationResults.ReplayPlan.class)))
    @APIResponse(responseCode = "202", description = "the dry run's events are pending again (or written), due now",
            content = @Content(mediaType = MediaType.APPLICATION_JSON,
                    schema = @Schema(implementation = DestinationActions.Replayed.class)))
    @APIResponse(responseCode = "400", description = "no or bad since, or a replay without a dry run's upToId")
    @APIResponse(responseCode = "404", description = "no destination of that name is configured")
    public Uni<Response> replay(@PathParam("name") String name, ReplayRequest request, @Context SecurityContext caller) {
        if (request == null) {
            return Uni.createFrom().item(ErrorBody.response(Response.Status.BAD_REQUEST,
                    "body must be a JSON object with since, and for the replay upToId and dryRun false"));
        }
        if (!Boolean.FALSE.equals(request.dryRun())) {
            return actions.previewReplay(name, request.since(), request.upToId()).map(Answers::ok);
        }
        if (request.upToId() == null) {
            return Uni.createFrom().item(ErrorBody.response(Response.Status.BAD_REQUEST,
                    "a replay takes the upToId of a dry run: send since without dryRun first"));
        }
        return actions.replay(name, request.since(), request.upToId(), AdminResource.actor(caller))
                .map(Answers::accepted);
    }
}
