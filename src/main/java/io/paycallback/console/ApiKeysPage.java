package io.paycallback.console;

import io.paycallback.apikey.ApiKey;
import io.paycallback.auth.Roles;
import io.paycallback.ops.ActionResult;
import io.paycallback.ops.ApiKeyActions;
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
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

import java.util.Arrays;
import java.util.List;

/**
 * The order service's API keys ({@link ApiKeyActions}): the list (prefix, merchants, last use, revoked or live), a form
 * that makes one and shows it this once, and revoke: everything {@code /admin/api-keys} does.
 */
@Path(ConsoleSessions.PATH + "/api-keys")
@Produces(MediaType.TEXT_HTML)
@RolesAllowed({Roles.OPERATOR, Roles.VIEWER})
@HttpAuthenticationMechanism(ConsoleSessionMechanism.SCHEME)
@ConsoleGuard.Guarded
public class ApiKeysPage {

    /** One key as the list shows it. */
    public record KeyLine(String id, String prefix, String name, String merchants, String createdBy, String createdAt,
                          String lastUsedAt, boolean revoked, String revokedBy, String revokedAt) {

        static KeyLine of(ApiKey key) {
            return new KeyLine(key.id(), key.prefix(), key.name(), String.join(", ", key.merchants()), key.createdBy(),
                    ConsoleViews.time(key.createdAt()), key.lastUsedAt() == null ? "never" : ConsoleViews.time(key.lastUsedAt()),
                    key.revoked(), key.revokedBy() == null ? "" : key.revokedBy(),
                    key.revokedAt() == null ? "" : ConsoleViews.time(key.revokedAt()));
        }
    }

    private final ApiKeyActions actions;
    private final ConsolePage page;

    public ApiKeysPage(ApiKeyActions actions, ConsolePage page) {
        this.actions = actions;
        this.page = page;
    }

    @GET
    @Offers(OperatorAction.API_KEY_LIST)
    public Uni<TemplateInstance> list() {
        return actions.list().map(result -> ConsolePage.page(result, keys -> Templates.apiKeys(page.page("api-keys"),
                keys.stream().map(KeyLine::of).toList())));
    }

    /** @param merchants merchant ids separated by commas or spaces */
    @POST
    @RolesAllowed(Roles.OPERATOR)
    @Path("create")
    @Consumes(MediaType.APPLICATION_FORM_URLENCODED)
    @Offers(OperatorAction.API_KEY_CREATE)
    public Uni<TemplateInstance> create(@FormParam("name") String name, @FormParam("merchants") String merchants) {
        List<String> ids = merchants == null ? List.of()
                : Arrays.stream(merchants.split("[,\\s]+")).filter(id -> !id.isBlank()).toList();
        return actions.create(name, ids, page.operator()).map(result -> result instanceof ActionResult.Done<ApiKeyActions.Created> done
                ? Templates.apiKeyMade(done.value().key().prefix(), done.value().token(), done.summary())
                : ConsolePage.done(result));
    }

    @POST
    @RolesAllowed(Roles.OPERATOR)
    @Path("{id}/revoke")
    @Offers(OperatorAction.API_KEY_REVOKE)
    public Uni<TemplateInstance> revoke(@PathParam("id") String id) {
        return actions.revoke(id, page.operator()).map(ConsolePage::done);
    }
}
