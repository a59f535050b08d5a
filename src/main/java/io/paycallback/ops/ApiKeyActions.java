package io.paycallback.ops;

import io.paycallback.apikey.ApiKey;
import io.paycallback.apikey.ApiKeys;
import io.paycallback.registry.Registry;
import io.paycallback.registry.RegistryContent;
import io.quarkus.runtime.annotations.RegisterForReflection;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The order service's API keys for an operator: list them, make one scoped to merchants the registry knows (its
 * token is answered this once), revoke one. Each change is audited in its transaction; every instance applies it
 * within its poll ({@code paycallback.api-keys.poll-interval}).
 */
@ApplicationScoped
public class ApiKeyActions {

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9 ._-]{0,63}");
    private static final Pattern ID = Pattern.compile("[a-z0-9]{8}");
    static final int MAX_MERCHANTS = 30;

    /**
     * A key made.
     *
     * @param token the whole key: shown this once, never stored, never shown again
     */
    @RegisterForReflection
    public record Created(ApiKey key, String token) {
    }

    @RegisterForReflection
    public record Revoked(String id, String prefix) {
    }

    private final ApiKeys keys;
    private final Registry registry;
    private final AuditLog audit;

    public ApiKeyActions(ApiKeys keys, Registry registry, AuditLog audit) {
        this.keys = keys;
        this.registry = registry;
        this.audit = audit;
    }

    /** Every key made through the API or the console, revoked ones included, newest first. */
    @OperatorAction.Performs(OperatorAction.API_KEY_LIST)
    public Uni<ActionResult<List<ApiKey>>> list() {
        return keys.list().map(list -> ActionResult.done(list, list.size() + " API keys ("
                + list.stream().filter(key -> !key.revoked()).count() + " live)"));
    }

    /** @param merchants merchant ids the registry knows (properties' or the database's), at least one */
    @OperatorAction.Performs(OperatorAction.API_KEY_CREATE)
    public Uni<ActionResult<Created>> create(String name, List<String> merchants, String actor) {
        if (name == null || !NAME.matcher(name.strip()).matches()) {
            return Uni.createFrom().item(ActionResult.refused(
                    "name is 1-64 letters, digits, spaces, '.', '_' or '-', starting with a letter or digit"));
        }
        Set<String> scope = new LinkedHashSet<>();
        if (merchants != null) {
            merchants.stream().filter(id -> id != null && !id.isBlank()).map(String::strip).forEach(scope::add);
        }
        if (scope.isEmpty() || scope.size() > MAX_MERCHANTS) {
            return Uni.createFrom().item(ActionResult.refused("merchants names 1 to " + MAX_MERCHANTS
                    + " merchant ids the key reaches"));
        }
        RegistryContent content = registry.snapshot().all();
        List<String> unknown = scope.stream().filter(id -> content.merchant(id).isEmpty()).toList();
        if (!unknown.isEmpty()) {
            return Uni.createFrom().item(ActionResult.refused("no merchant " + String.join(", ", unknown)
                    + " in the registry"));
        }
        List<String> reached = new ArrayList<>(scope);
        String keyName = name.strip();
        String id = keys.newId();
        AuditLog.Entry entry = audit.entry(actor, AuditAction.API_KEY_CREATE, target(id, reached));
        return keys.create(id, keyName, reached, actor, tx -> entry.write(tx, 1))
                .map(made -> {
                    entry.logged();
                    return ActionResult.done(new Created(made.key(), made.token()), "API key " + made.key().prefix()
                            + " (" + keyName + ") made for " + String.join(", ", reached) + " (audit #" + made.auditEntry()
                            + "): copy it now, it is not shown again");
                });
    }

    @OperatorAction.Performs(OperatorAction.API_KEY_REVOKE)
    public Uni<ActionResult<Revoked>> revoke(String id, String actor) {
        if (id == null || !ID.matcher(id).matches()) {
            return Uni.createFrom().item(ActionResult.notFound("no live API key " + id));
        }
        String target = "api_key:" + id;
        AuditLog.Entry audited = audit.entry(actor, AuditAction.API_KEY_REVOKE, target);
        return keys.revoke(id, actor, tx -> audited.write(tx, 1))
                .map(entry -> {
                    if (entry.isEmpty()) {
                        return ActionResult.<Revoked>notFound("no live API key " + id);
                    }
                    audited.logged();
                    return ActionResult.done(new Revoked(id, "pck_" + id), "API key pck_" + id + " revoked (audit #" + entry.get()
                            + "): every instance refuses it within a poll");
                });
    }

    private static String target(String id, List<String> merchants) {
        return "api_key:" + id + " for " + String.join(",", merchants);
    }
}
