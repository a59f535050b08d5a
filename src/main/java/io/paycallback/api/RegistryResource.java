package io.paycallback.api;

import io.paycallback.auth.Roles;
import io.paycallback.ops.OperatorAction;
import io.paycallback.ops.OperatorAction.Offers;
import io.paycallback.ops.RegistryActions;
import io.paycallback.registry.AccountRequest;
import io.paycallback.registry.OwnerKind;
import io.paycallback.registry.OwnerView;
import io.paycallback.registry.RegistryStore;
import io.smallrye.mutiny.Uni;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
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

import java.util.Optional;

/**
 * Merchants, platforms and their provider accounts ({@link RegistryActions}, which audits every change): every instance
 * serves a change within its poll interval, no deploy. Secrets are write-only: answers name them by fingerprint.
 * Entries declared in properties are listed, and read-only here.
 */
@Path("/admin/registry")
@Produces(MediaType.APPLICATION_JSON)
@RolesAllowed({Roles.OPERATOR, Roles.VIEWER})
@OperatorAccessLog.Logged
@Tag(name = "registry")
@SecurityRequirement(name = ApiDocument.BEARER)
@APIResponse(responseCode = "401", description = "no or unknown bearer token")
@APIResponse(responseCode = "403", description = "the caller is not an operator (a viewer may only read), or is scoped to merchants")
public class RegistryResource {

    @Schema(name = "RegistryCreateRequest")
    public record CreateRequest(@Schema(description = "the merchant's or platform's id: the last segment of its callback"
            + " path", required = true, example = "shop-42") String id) {
    }

    @Schema(name = "RegistryKeyRequest")
    public record KeyRequest(
            @Schema(description = "WeChat Pay: the key's serial (PUB_KEY_ID_... or a certificate serial); Stripe: none")
            String serial,
            @Schema(description = "the key: a WeChat Pay public key (PEM or base64 DER) or a Stripe whsec_... secret",
                    required = true) String value) {
    }

    @Schema(name = "RegistryRetireRequest")
    public record RetireRequest(@Schema(description = "when it stops being accepted, ISO-8601; now when absent",
            example = "2026-12-31T00:00:00Z") String at) {
    }

    private final RegistryActions actions;

    public RegistryResource(RegistryActions actions) {
        this.actions = actions;
    }

    @GET
    @Offers(OperatorAction.REGISTRY_LIST)
    @APIResponse(responseCode = "200", description = "every merchant and platform, from properties and the database",
            content = @Content(mediaType = MediaType.APPLICATION_JSON,
                    schema = @Schema(type = SchemaType.ARRAY, implementation = OwnerView.class)))
    public Uni<Response> list() {
        return actions.list(Optional.empty()).map(Answers::ok);
    }

    @GET
    @Path("{kind: merchants|platforms}")
    @Offers(OperatorAction.REGISTRY_LIST)
    @APIResponse(responseCode = "200", description = "every merchant, or every platform",
            content = @Content(mediaType = MediaType.APPLICATION_JSON,
                    schema = @Schema(type = SchemaType.ARRAY, implementation = OwnerView.class)))
    public Uni<Response> listKind(@PathParam("kind") String kind) {
        return actions.list(Optional.of(kind(kind))).map(Answers::ok);
    }

    @POST
    @RolesAllowed(Roles.OPERATOR)
    @Path("{kind: merchants|platforms}")
    @Consumes(MediaType.APPLICATION_JSON)
    @Offers(OperatorAction.REGISTRY_CREATE)
    @APIResponse(responseCode = "201", description = "created, enabled, with no account yet",
            content = @Content(mediaType = MediaType.APPLICATION_JSON,
                    schema = @Schema(implementation = RegistryActions.Changed.class)))
    @APIResponse(responseCode = "400", description = "not an id, or declared in properties")
    @APIResponse(responseCode = "409", description = "a merchant or platform has that id already")
    public Uni<Response> create(@PathParam("kind") String kind, CreateRequest request, @Context SecurityContext caller) {
        return actions.create(kind(kind), request == null ? null : request.id(), AdminResource.actor(caller))
                .map(result -> Answers.json(result, changed -> Response.status(Response.Status.CREATED).entity(changed).build()));
    }

    @GET
    @Path("{kind: merchants|platforms}/{id}")
    @Offers(OperatorAction.REGISTRY_INSPECT)
    @APIResponse(responseCode = "200", description = "the merchant or platform, secrets by fingerprint",
            content = @Content(mediaType = MediaType.APPLICATION_JSON, schema = @Schema(implementation = OwnerView.class)))
    @APIResponse(responseCode = "404", description = "no such merchant or platform")
    public Uni<Response> get(@PathParam("kind") String kind, @PathParam("id") String id) {
        return actions.get(kind(kind), id).map(Answers::ok);
    }

    @GET
    @Path("{kind: merchants|platforms}/{id}/changes")
    @Offers(OperatorAction.REGISTRY_CHANGES)
    @APIResponse(responseCode = "200", description = "its changes, newest first: who, what, before and after",
            content = @Content(mediaType = MediaType.APPLICATION_JSON,
                    schema = @Schema(type = SchemaType.ARRAY, implementation = RegistryStore.Change.class)))
    public Uni<Response> changes(@PathParam("kind") String kind, @PathParam("id") String id,
                                 @QueryParam("limit") @DefaultValue("50") int limit) {
        return actions.changes(id, limit).map(Answers::ok);
    }

    @POST
    @RolesAllowed(Roles.OPERATOR)
    @Path("{kind: merchants|platforms}/{id}/enable")
    @Offers(OperatorAction.REGISTRY_ENABLE)
    @APIResponse(responseCode = "200", description = "served again by every instance within its poll; held notices parsed again",
            content = @Content(mediaType = MediaType.APPLICATION_JSON,
                    schema = @Schema(implementation = RegistryActions.Changed.class)))
    @APIResponse(responseCode = "409", description = "enabled already")
    public Uni<Response> enable(@PathParam("kind") String kind, @PathParam("id") String id, @Context SecurityContext caller) {
        return actions.enable(kind(kind), id, AdminResource.actor(caller)).map(Answers::ok);
    }

    @POST
    @RolesAllowed(Roles.OPERATOR)
    @Path("{kind: merchants|platforms}/{id}/disable")
    @Offers(OperatorAction.REGISTRY_DISABLE)
    @APIResponse(responseCode = "200", description = "no longer served: its notices are answered with a failure (the"
            + " provider retries) or, on a platform's endpoint, held in quarantine",
            content = @Content(mediaType = MediaType.APPLICATION_JSON,
                    schema = @Schema(implementation = RegistryActions.Changed.class)))
    @APIResponse(responseCode = "409", description = "disabled already")
    public Uni<Response> disable(@PathParam("kind") String kind, @PathParam("id") String id, @Context SecurityContext caller) {
        return actions.disable(kind(kind), id, AdminResource.actor(caller)).map(Answers::ok);
    }

    @PUT
    @RolesAllowed(Roles.OPERATOR)
    @Path("{kind: merchants|platforms}/{id}/accounts/{provider}")
    @Consumes(MediaType.APPLICATION_JSON)
    @Offers(OperatorAction.REGISTRY_PUT_ACCOUNT)
    @APIResponse(responseCode = "200", description = "saved, checked as a start checks properties",
            content = @Content(mediaType = MediaType.APPLICATION_JSON,
                    schema = @Schema(implementation = RegistryActions.Changed.class)))
    @APIResponse(responseCode = "400", description = "a field is missing, wrong or not this provider's; the reason names it")
    public Uni<Response> putAccount(@PathParam("kind") String kind, @PathParam("id") String id,
                                    @PathParam("provider") String provider, AccountRequest request,
                                    @Context SecurityContext caller) {
        if (request == null) {
            return Uni.createFrom().item(ErrorBody.response(Response.Status.BAD_REQUEST, "a JSON body is required"));
        }
        return actions.putAccount(kind(kind), id, provider, request, AdminResource.actor(caller)).map(Answers::ok);
    }

    @DELETE
    @RolesAllowed(Roles.OPERATOR)
    @Path("{kind: merchants|platforms}/{id}/accounts/{provider}")
    @Offers(OperatorAction.REGISTRY_REMOVE_ACCOUNT)
    @APIResponse(responseCode = "200", description = "removed: the provider's notices for it are no longer served",
            content = @Content(mediaType = MediaType.APPLICATION_JSON,
                    schema = @Schema(implementation = RegistryActions.Changed.class)))
    public Uni<Response> removeAccount(@PathParam("kind") String kind, @PathParam("id") String id,
                                       @PathParam("provider") String provider, @Context SecurityContext caller) {
        return actions.removeAccount(kind(kind), id, provider, AdminResource.actor(caller)).map(Answers::ok);
    }

    @POST
    @RolesAllowed(Roles.OPERATOR)
    @Path("{kind: merchants|platforms}/{id}/accounts/{provider}/keys")
    @Consumes(MediaType.APPLICATION_JSON)
    @Offers(OperatorAction.REGISTRY_ADD_KEY)
    @APIResponse(responseCode = "200", description = "the key is accepted beside the others from now on",
            content = @Content(mediaType = MediaType.APPLICATION_JSON,
                    schema = @Schema(implementation = RegistryActions.Changed.class)))
    public Uni<Response> addKey(@PathParam("kind") String kind, @PathParam("id") String id,
                                @PathParam("provider") String provider, KeyRequest request, @Context SecurityContext caller) {
        if (request == null) {
            return Uni.createFrom().item(ErrorBody.response(Response.Status.BAD_REQUEST, "a JSON body is required"));
        }
        return actions.addKey(kind(kind), id, provider, request.serial(), request.value(), AdminResource.actor(caller))
                .map(Answers::ok);
    }

    @POST
    @RolesAllowed(Roles.OPERATOR)
    @Path("{kind: merchants|platforms}/{id}/accounts/{provider}/keys/{serial}/retire")
    @Consumes(MediaType.APPLICATION_JSON)
    @Offers(OperatorAction.REGISTRY_RETIRE_KEY)
    @APIResponse(responseCode = "200", description = "the key is refused from that time on, by every instance",
            content = @Content(mediaType = MediaType.APPLICATION_JSON,
                    schema = @Schema(implementation = RegistryActions.Changed.class)))
    @APIResponse(responseCode = "400", description = "it is the last live key, or no key has that serial")
    public Uni<Response> retireKey(@PathParam("kind") String kind, @PathParam("id") String id,
                                   @PathParam("provider") String provider, @PathParam("serial") String serial,
                                   RetireRequest request, @Context SecurityContext caller) {
        return actions.retireKey(kind(kind), id, provider, serial, request == null ? null : request.at(),
                AdminResource.actor(caller)).map(Answers::ok);
    }

    @POST
    @RolesAllowed(Roles.OPERATOR)
    @Path("rewrap")
    @Offers(OperatorAction.REGISTRY_REWRAP)
    @APIResponse(responseCode = "200", description = "every sealed secret's data key is wrapped by the first"
            + " key-encryption key; older keys can then be removed from configuration",
            content = @Content(mediaType = MediaType.APPLICATION_JSON,
                    schema = @Schema(implementation = RegistryActions.Rewrapped.class)))
    @APIResponse(responseCode = "409", description = "no key-encryption key is configured")
    public Uni<Response> rewrap(@Context SecurityContext caller) {
        return actions.rewrap(AdminResource.actor(caller)).map(Answers::ok);
    }

    private static OwnerKind kind(String plural) {
        return "platforms".equals(plural) ? OwnerKind.PLATFORM : OwnerKind.MERCHANT;
    }
}
