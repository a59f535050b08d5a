package io.paycallback.console;

import io.paycallback.auth.Roles;
import io.paycallback.ops.ActionResult;
import io.paycallback.ops.OperatorAction;
import io.paycallback.ops.OperatorAction.Offers;
import io.paycallback.ops.RegistryActions;
import io.paycallback.registry.AccountRequest;
import io.paycallback.registry.OwnerKind;
import io.quarkus.qute.TemplateInstance;
import io.quarkus.vertx.http.runtime.security.annotation.HttpAuthenticationMechanism;
import io.smallrye.mutiny.Uni;
import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.FormParam;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import static io.paycallback.console.ConsolePage.blankToNull;

/**
 * Merchants and platforms ({@link RegistryActions}): the list with every account's keys by fingerprint, a page per
 * merchant or platform with its account forms and its changes, and every change the admin API's {@code /admin/registry}
 * makes. Secrets go in and never come out; a secret field left empty keeps the value the account has.
 */
@Path(ConsoleSessions.PATH + "/merchants")
@Produces(MediaType.TEXT_HTML)
@RolesAllowed({Roles.OPERATOR, Roles.VIEWER})
@HttpAuthenticationMechanism(ConsoleSessionMechanism.SCHEME)
@ConsoleGuard.Guarded
public class MerchantsPage {

    private static final String KIND = "{kind: merchant|platform}";
    private static final int CHANGES_LIMIT = 50;

    private final RegistryActions actions;
    private final ConsolePage page;

    public MerchantsPage(RegistryActions actions, ConsolePage page) {
        this.actions = actions;
        this.page = page;
    }

    @GET
    @Offers(OperatorAction.REGISTRY_LIST)
    public Uni<TemplateInstance> list() {
        return actions.list(Optional.empty()).map(result -> ConsolePage.page(result, owners -> Templates.merchants(
                page.page("merchants"), owners.stream().map(ConsoleViews.OwnerLine::of).toList())));
    }

    @GET
    @Path(KIND + "/{id}")
    @Offers({OperatorAction.REGISTRY_INSPECT, OperatorAction.REGISTRY_CHANGES})
    public Uni<TemplateInstance> owner(@PathParam("kind") String kind, @PathParam("id") String id) {
        return actions.get(kind(kind), id).flatMap(found -> actions.changes(id, CHANGES_LIMIT)
                .map(changes -> ConsolePage.page(found, owner -> ConsolePage.page(changes, list ->
                        Templates.merchant(page.page("merchants"), ConsoleViews.OwnerPage.of(owner, list))))));
    }

    @POST
    @RolesAllowed(Roles.OPERATOR)
    @Path("create")
    @Consumes(MediaType.APPLICATION_FORM_URLENCODED)
    @Offers(OperatorAction.REGISTRY_CREATE)
    public Uni<TemplateInstance> create(@FormParam("kind") String kind, @FormParam("id") String id) {
        Optional<OwnerKind> known = OwnerKind.of(kind);
        if (known.isEmpty()) {
            return Uni.createFrom().item(ConsolePage.done(ActionResult.refused("kind is merchant or platform")));
        }
        return actions.create(known.get(), blankToNull(id), page.operator()).map(ConsolePage::done);
    }

    @POST
    @RolesAllowed(Roles.OPERATOR)
    @Path(KIND + "/{id}/enable")
    @Offers(OperatorAction.REGISTRY_ENABLE)
    public Uni<TemplateInstance> enable(@PathParam("kind") String kind, @PathParam("id") String id) {
        return actions.enable(kind(kind), id, page.operator()).map(ConsolePage::done);
    }

    @POST
    @RolesAllowed(Roles.OPERATOR)
    @Path(KIND + "/{id}/disable")
    @Offers(OperatorAction.REGISTRY_DISABLE)
    public Uni<TemplateInstance> disable(@PathParam("kind") String kind, @PathParam("id") String id) {
        return actions.disable(kind(kind), id, page.operator()).map(ConsolePage::done);
    }

    /**
     * Saves one provider's account from its form. One WeChat Pay public key or one Stripe webhook secret, when given,
     * replaces those the account has; rotating them one by one is Add key and Retire.
     */
    @POST
    @RolesAllowed(Roles.OPERATOR)
    @Path(KIND + "/{id}/accounts/{provider}")
    @Consumes(MediaType.APPLICATION_FORM_URLENCODED)
    @Offers(OperatorAction.REGISTRY_PUT_ACCOUNT)
    public Uni<TemplateInstance> putAccount(@PathParam("kind") String kind, @PathParam("id") String id,
                                            @PathParam("provider") String provider, @FormParam("mode") String mode,
                                            @FormParam("platform") String platform, @FormParam("subId") String subId,
                                            @FormParam("appAuthToken") String appAuthToken,
                                            @FormParam("mchid") String mchid, @FormParam("apiV3Key") String apiV3Key,
                                            @FormParam("publicKeySerial") String publicKeySerial,
                                            @FormParam("wxPublicKey") String wxPublicKey,
                                            @FormParam("merchantSerial") String merchantSerial,
                                            @FormParam("merchantPrivateKey") String merchantPrivateKey,
                                            @FormParam("appId") String appId, @FormParam("publicKey") String publicKey,
                                            @FormParam("appPrivateKey") String appPrivateKey,
                                            @FormParam("webhookSecret") String webhookSecret,
                                            @FormParam("apiKey") String apiKey) {
        String wxKey = blankToNull(wxPublicKey);
        if (wxKey != null && blankToNull(publicKeySerial) == null) {
            return Uni.createFrom().item(ConsolePage.done(ActionResult.refused(
                    "a WeChat Pay public key needs its serial (PUB_KEY_ID_... or the certificate's serial)")));
        }
        String secret = blankToNull(webhookSecret);
        AccountRequest request = new AccountRequest(blankToNull(mode), blankToNull(platform), blankToNull(subId),
                blankToNull(appAuthToken), blankToNull(mchid), blankToNull(apiV3Key),
                wxKey == null ? null : Map.of(publicKeySerial.strip(), wxKey), blankToNull(merchantSerial),
                blankToNull(merchantPrivateKey), null, blankToNull(appId), blankToNull(publicKey), null, null, null,
                blankToNull(appPrivateKey),
                secret == null ? null : List.of(secret), blankToNull(apiKey));
        return actions.putAccount(kind(kind), id, provider, request, page.operator()).map(ConsolePage::done);
    }

    @POST
    @RolesAllowed(Roles.OPERATOR)
    @Path(KIND + "/{id}/accounts/{provider}/remove")
    @Offers(OperatorAction.REGISTRY_REMOVE_ACCOUNT)
    public Uni<TemplateInstance> removeAccount(@PathParam("kind") String kind, @PathParam("id") String id,
                                               @PathParam("provider") String provider) {
        return actions.removeAccount(kind(kind), id, provider, page.operator()).map(ConsolePage::done);
    }

    @POST
    @RolesAllowed(Roles.OPERATOR)
    @Path(KIND + "/{id}/accounts/{provider}/keys")
    @Consumes(MediaType.APPLICATION_FORM_URLENCODED)
    @Offers(OperatorAction.REGISTRY_ADD_KEY)
    public Uni<TemplateInstance> addKey(@PathParam("kind") String kind, @PathParam("id") String id,
                                        @PathParam("provider") String provider, @FormParam("serial") String serial,
                                        @FormParam("value") String value) {
        return actions.addKey(kind(kind), id, provider, blankToNull(serial), blankToNull(value), page.operator())
                .map(ConsolePage::done);
    }

    /** The serial travels in the form: a certificate's serial or a fingerprint, never a path segment to encode. */
    @POST
    @RolesAllowed(Roles.OPERATOR)
    @Path(KIND + "/{id}/accounts/{provider}/keys/retire")
    @Consumes(MediaType.APPLICATION_FORM_URLENCODED)
    @Offers(OperatorAction.REGISTRY_RETIRE_KEY)
    public Uni<TemplateInstance> retireKey(@PathParam("kind") String kind, @PathParam("id") String id,
                                           @PathParam("provider") String provider, @FormParam("serial") String serial,
                                           @FormParam("at") String at) {
        return actions.retireKey(kind(kind), id, provider, blankToNull(serial), blankToNull(at), page.operator())
                .map(ConsolePage::done);
    }

    @POST
    @RolesAllowed(Roles.OPERATOR)
    @Path("rewrap")
    @Offers(OperatorAction.REGISTRY_REWRAP)
    public Uni<TemplateInstance> rewrap() {
        return actions.rewrap(page.operator()).map(ConsolePage::done);
    }

    /** The path's kind, which its pattern limits to the two labels. */
    private static OwnerKind kind(String label) {
        return OwnerKind.of(label).orElseThrow();
    }
}
