package io.paycallback.ops;

import io.paycallback.inbox.Quarantine;
import io.paycallback.registry.Account;
import io.paycallback.registry.AccountRequest;
import io.paycallback.registry.Edit;
import io.paycallback.registry.Edits;
import io.paycallback.registry.MerchantEntry;
import io.paycallback.registry.OwnerKind;
import io.paycallback.registry.OwnerView;
import io.paycallback.registry.PlatformEntry;
import io.paycallback.registry.Registry;
import io.paycallback.registry.RegistryContent;
import io.paycallback.registry.RegistryStore;
import io.paycallback.registry.Written;
import io.paycallback.trade.ChannelId;
import io.quarkus.runtime.annotations.RegisterForReflection;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * Merchants, platforms and their keys for an operator: list, create, enable and disable, save or remove a provider
 * account, add a key beside the one in use and retire the old one, and re-wrap every secret under a new key-encryption
 * key. Every change is audited in its transaction and served by every instance within a poll. A change that makes a
 * merchant or platform serve parses again what the quarantine held for it, so notices that came before it was
 * configured are stored now and the provider's next push is answered success.
 */
@ApplicationScoped
public class RegistryActions {

    /** How many held notices one change parses again; more wait for the next change or Parse again. */
    static final int HEAL_LIMIT = 1000;

    /**
     * A change made.
     *
     * @param version the registry version it made; every instance serves it within its poll interval
     * @param healed  quarantined notices that it let be stored
     */
    @RegisterForReflection
    public record Changed(OwnerView owner, long version, int healed) {
    }

    @RegisterForReflection
    public record Rewrapped(int rows, String keyEncryptionKey) {
    }

    private final Registry registry;
    private final AuditLog audit;
    private final Quarantine quarantine;
    private final QuarantineActions quarantineActions;

    public RegistryActions(Registry registry, AuditLog audit, Quarantine quarantine, QuarantineActions quarantineActions) {
        this.registry = registry;
        this.audit = audit;
        this.quarantine = quarantine;
        this.quarantineActions = quarantineActions;
    }

    /** Every merchant and platform this instance serves, properties' and the database's, by id. */
    @OperatorAction.Performs(OperatorAction.REGISTRY_LIST)
    public Uni<ActionResult<List<OwnerView>>> list(Optional<OwnerKind> kind) {
        RegistryContent content = registry.snapshot().all();
        Instant now = registry.now();
        List<OwnerView> views = new ArrayList<>();
        if (kind.isEmpty() || kind.get() == OwnerKind.PLATFORM) {
            content.platforms().values().forEach(platform -> views.add(OwnerView.of(platform, now)));
        }
        if (kind.isEmpty() || kind.get() == OwnerKind.MERCHANT) {
            content.merchants().values().forEach(merchant -> views.add(OwnerView.of(merchant, now)));
        }
        views.sort(Comparator.comparing(OwnerView::kind).thenComparing(OwnerView::id));
        return Uni.createFrom().item(ActionResult.done(views, views.size() + " merchants and platforms (registry version "
                + registry.snapshot().version() + ")"));
    }

    @OperatorAction.Performs(OperatorAction.REGISTRY_INSPECT)
    public Uni<ActionResult<OwnerView>> get(OwnerKind kind, String id) {
        RegistryContent content = registry.snapshot().all();
        Optional<OwnerView> view = kind == OwnerKind.MERCHANT
                ? content.merchant(id).map(merchant -> OwnerView.of(merchant, registry.now()))
                : content.platform(id).map(platform -> OwnerView.of(platform, registry.now()));
        return Uni.createFrom().item(view.map(found -> ActionResult.done(found, kind.label() + " " + id))
                .orElseGet(() -> ActionResult.notFound("no " + kind.label() + " " + id)));
    }

    /** The owner's changes, newest first; before and after name secrets by fingerprint only. */
    @OperatorAction.Performs(OperatorAction.REGISTRY_CHANGES)
    public Uni<ActionResult<List<RegistryStore.Change>>> changes(String id, int limit) {
        Optional<String> badLimit = Limits.check(limit);
        if (badLimit.isPresent()) {
            return Uni.createFrom().item(ActionResult.refused(badLimit.get()));
        }
        return registry.changes(id, limit).map(changes -> ActionResult.done(changes, changes.size() + " changes"));
    }

    @OperatorAction.Performs(OperatorAction.REGISTRY_CREATE)
    public Uni<ActionResult<Changed>> create(OwnerKind kind, String id, String actor) {
        return change(Edits.create(kind, id), kind.label() + ":" + id, actor);
    }

    @OperatorAction.Performs(OperatorAction.REGISTRY_ENABLE)
    public Uni<ActionResult<Changed>> enable(OwnerKind kind, String id, String actor) {
        return change(Edits.enable(kind, id, true), kind.label() + ":" + id, actor);
    }

    /** No longer served: its notices answered with the provider's failure, or held when a platform's name it. */
    @OperatorAction.Performs(OperatorAction.REGISTRY_DISABLE)
    public Uni<ActionResult<Changed>> disable(OwnerKind kind, String id, String actor) {
        return change(Edits.enable(kind, id, false), kind.label() + ":" + id, actor);
    }

    @OperatorAction.Performs(OperatorAction.REGISTRY_PUT_ACCOUNT)
    public Uni<ActionResult<Changed>> putAccount(OwnerKind kind, String id, String provider, AccountRequest request,
                                                 String actor) {
        return withProvider(provider, channel -> change(Edits.putAccount(kind, id, channel, request),
                kind.label() + ":" + id + "/" + channel.path(), actor));
    }

    @OperatorAction.Performs(OperatorAction.REGISTRY_REMOVE_ACCOUNT)
    public Uni<ActionResult<Changed>> removeAccount(OwnerKind kind, String id, String provider, String actor) {
        return withProvider(provider, channel -> change(Edits.removeAccount(kind, id, channel),
                kind.label() + ":" + id + "/" + channel.path(), actor));
    }

    @OperatorAction.Performs(OperatorAction.REGISTRY_ADD_KEY)
    public Uni<ActionResult<Changed>> addKey(OwnerKind kind, String id, String provider, String serial, String value,
                                             String actor) {
        return withProvider(provider, channel -> change(Edits.addKey(kind, id, channel, serial, value),
                kind.label() + ":" + id + "/" + channel.path(), actor));
    }

    /** @param at ISO-8601 instant ({@code 2026-12-31T00:00:00Z}); now when absent */
    @OperatorAction.Performs(OperatorAction.REGISTRY_RETIRE_KEY)
    public Uni<ActionResult<Changed>> retireKey(OwnerKind kind, String id, String provider, String serial, String at,
                                                String actor) {
        Instant when;
        try {
            when = at == null || at.isBlank() ? registry.now() : Instant.parse(at.strip());
        } catch (DateTimeParseException e) {
            return Uni.createFrom().item(ActionResult.refused("at is an ISO-8601 instant such as 2026-12-31T00:00:00Z"));
        }
        return withProvider(provider, channel -> change(Edits.retireKey(kind, id, channel, serial, when),
                kind.label() + ":" + id + "/" + channel.path(), actor));
    }

    @OperatorAction.Performs(OperatorAction.REGISTRY_REWRAP)
    public Uni<ActionResult<Rewrapped>> rewrap(String actor) {
        Optional<String> active = registry.keyEncryptionKeys().active().map(key -> key.id());
        if (active.isEmpty()) {
            return Uni.createFrom().item(ActionResult.conflict(
                    "no key-encryption key is configured (paycallback.registry.key-encryption-keys)"));
        }
        AuditLog.Entry entry = audit.entry(actor, AuditAction.REGISTRY_REWRAP, "registry");
        return registry.rewrap(entry::write)
                .map(rows -> {
                    long id = entry.logged();
                    return ActionResult.done(new Rewrapped(rows, active.get()), rows
                            + " accounts re-wrapped under key-encryption key " + active.get() + " (audit #" + id + ")");
                });
    }

    private Uni<ActionResult<Changed>> withProvider(String provider,
                                                    Function<ChannelId, Uni<ActionResult<Changed>>> action) {
        return ChannelId.fromPath(provider).map(action).orElseGet(() -> Uni.createFrom().item(
                ActionResult.notFound("no provider '" + provider + "' (wxpay, alipay, stripe)")));
    }

    private Uni<ActionResult<Changed>> change(Function<RegistryContent, Edit> edit, String target, String actor) {
        AuditLog.Entry entry = audit.entry(actor, AuditAction.REGISTRY_CHANGE, target);
        return registry.change(actor, edit, tx -> entry.write(tx, 1))
                .flatMap(written -> {
                    if (written instanceof Written.Changed changed) {
                        entry.logged();
                        return heal(changed.owner(), actor).map(healed -> ActionResult.done(
                                new Changed(changed.owner(), changed.version(), healed),
                                changed.summary() + " (registry version " + changed.version() + ", audit #"
                                        + changed.auditEntry() + (healed > 0 ? "; " + healed + " held notices stored" : "")
                                        + ")"));
                    }
                    if (written instanceof Written.Unchanged unchanged) {
                        return Uni.createFrom().item(ActionResult.<Changed>conflict(unchanged.summary()));
                    }
                    if (written instanceof Written.NotFound notFound) {
                        return Uni.createFrom().item(ActionResult.<Changed>notFound(notFound.reason()));
                    }
                    if (written instanceof Written.Conflict conflict) {
                        return Uni.createFrom().item(ActionResult.<Changed>conflict(conflict.reason()));
                    }
                    return Uni.createFrom().item(ActionResult.<Changed>refused(((Written.Refused) written).reason()));
                });
    }

    /**
     * Parses again what the quarantine holds under the owner's id and, for a sub-merchant, under its platforms' ids, on
     * the channels it serves now; what reads now is stored, the rest stays held.
     */
    private Uni<Integer> heal(OwnerView owner, String actor) {
        if (!owner.enabled()) {
            return Uni.createFrom().item(0);
        }
        Set<String> heldUnder = new LinkedHashSet<>();
        List<ChannelId> channels = new ArrayList<>();
        RegistryContent content = registry.snapshot().all();
        heldUnder.add(owner.id());
        if (owner.kind() == OwnerKind.MERCHANT) {
            content.merchant(owner.id()).map(MerchantEntry::accounts).ifPresent(accounts -> accounts.values().forEach(account -> {
                channels.add(account.provider());
                if (account instanceof Account.SubMerchant sub) {
                    heldUnder.add(sub.platform());
                }
            }));
        } else {
            content.platform(owner.id()).map(PlatformEntry::keys).ifPresent(keys -> channels.addAll(keys.keySet()));
        }
        return Multi.createFrom().iterable(channels)
                .onItem().transformToUniAndConcatenate(channel -> Multi.createFrom().iterable(heldUnder)
                        .onItem().transformToUniAndConcatenate(id -> quarantine.heldFor(channel, id, HEAL_LIMIT))
                        .collect().asList())
                .collect().asList()
                .map(lists -> lists.stream().flatMap(List::stream).flatMap(List::stream).toList())
                .flatMap(ids -> Multi.createFrom().iterable(ids)
                        .onItem().transformToUniAndConcatenate(id -> quarantineActions.replay(id, actor))
                        .filter(ActionResult.Done.class::isInstance)
                        .collect().asList().map(List::size));
    }
}
