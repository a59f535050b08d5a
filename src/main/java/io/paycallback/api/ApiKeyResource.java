package io.paycallback.api;

import io.paycallback.apikey.ApiKey;
import io.paycallback.auth.Roles;
import io.paycallback.ops.ApiKeyActions;
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

import java.util.List;

/**
 * The order service's API keys ({@link ApiKeyActions}, which audits every change): made scoped to merchants, the
 * key answered once; revoked, refused by every instance within a poll. Keys from properties are not listed here.
 */
@Path("/admin/api-keys")
@Produces(MediaType.APPLICATION_JSON)
@RolesAllowed({Roles.OPERATOR, Roles.VIEWER})
@OperatorAccessLog.Logged
@Tag(name = "api-keys")
@SecurityRequirement(name = ApiDocument.BEARER)
@APIResponse(responseCode = "401", description = "no or unknown bearer token")
@APIResponse(responseCode = "403", description = "the caller is not an operator (a viewer may only read), or is scoped to merchants")
public class ApiKeyResource {

    @Schema(name = "ApiKeyCreateRequest")
    public record CreateRequest(
            @Schema(description = "what the key is for, shown in lists", required = true, example = "shop-42 checkout")
            String name,
            @Schema(description = "the merchant ids it reaches: merchants the registry knows", required = true,
                    example = "[\"shop-42\"]") List<String> merchants) {
    }

    private final ApiKeyActions actions;

    public ApiKeyResource(ApiKeyActions actions) {
        this.actions = actions;
    }

    @GET
    @Offers(OperatorAction.API_KEY_LIST)
    @APIResponse(responseCode = "200", description = "every key made as data, revoked ones too; never a secret",
            content = @Content(mediaType = MediaType.APPLICATION_JSON,
                    schema = @Schema(type = SchemaType.ARRAY, implementation = ApiKey.class)))
    public Uni<Response> list() {
        return actions.list().map(Answers::ok);
    }

    @POST
    @RolesAllowed(Roles.OPERATOR)
    @Consumes(MediaType.APPLICATION_JSON)
    @Offers(OperatorAction.API_KEY_CREATE)
    @APIResponse(responseCode = "201", description = "made; token is the key, shown this once",
            content = @Content(mediaType = MediaType.APPLICATION_JSON,
                    schema = @Schema(implementation = ApiKeyActions.Created.class)))
    @APIResponse(responseCode = "400", description = "a bad name, no merchant, or a merchant the registry does not know")
    public Uni<Response> create(CreateRequest request, @Context SecurityContext caller) {
        return actions.create(request == null ? null : request.name(), request == null ? null : request.merchants(),
                        AdminResource.actor(caller))
                .map(result -> Answers.json(result, created -> Response.status(Response.Status.CREATED).entity(created).build()));
    }

    @POST
    @RolesAllowed(Roles.OPERATOR)
    @Path("{id}/revoke")
    @Offers(OperatorAction.API_KEY_REVOKE)
    @APIResponse(responseCode = "200", description = "revoked: refused by every instance within a poll",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = ApiKeyActions.Revoked.class)))
    @APIResponse(responseCode = "404", description = "no live key with that id")
    public Uni<Response> revoke(@PathParam("id") String id, @Context SecurityContext caller) {
        return actions.revoke(id, AdminResource.actor(caller)).map(Answers::ok);
    }
}
