package io.paycallback.registry;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.paycallback.channel.Channels;
import io.paycallback.config.PayCallbackConfig;
import io.paycallback.db.MySqlErrors;
import io.paycallback.provider.ProviderClients;
import io.paycallback.trade.ChannelId;
import io.quarkus.runtime.Startup;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.infrastructure.Infrastructure;
import io.vertx.mutiny.core.Vertx;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.SqlClient;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.spi.ObserverMethod;
import org.jboss.logging.Logger;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * The merchant registry: the merchants and platforms properties declare, with those the API made beside them in the
 * database, served by every instance as one immutable snapshot. Each instance asks for the registry's version every
 * {@code paycallback.registry.poll-interval}; when it moved, it reads the whole registry in one transaction, opens the
 * secrets, builds the channels and the provider clients aside and swaps them in at once. A failed read or build keeps
 * the snapshot served before; a running instance reads only the owners {@code registry_changes} names since the
 * version it serves, so every write of a registry row records its owner there, as {@link #change} does. A callback
 * pays nothing for this: it reads the snapshot its channel holds. It starts
 * before the other start-up beans, which may ask which merchants have keys.
 */
@Startup(ObserverMethod.DEFAULT_PRIORITY - 100)
@ApplicationScoped
public class Registry {

    private static final Logger LOG = Logger.getLogger(Registry.class);
    /** Changed owners read one by one up to this many; past it the whole registry is read. */
    private static final int PARTIAL_READ_LIMIT = 500;
    private static final ObjectMapper JSON = new ObjectMapper().registerModule(new JavaTimeModule());

    /** What is served: the database's entries as of {@code version}, and with the configured ones beside them. */
    public record Snapshot(long version, RegistryContent database, RegistryContent all, Optional<Instant> nextRetirement) {
    }

    private final RegistryContent configured;
    private final KeyEncryptionKeys keys;
    private final RegistryStore store;
    private final Pool pool;
    private final Channels channels;
    private final ProviderClients clients;
    private final Clock clock;
    private final Vertx vertx;
    private final Counter failures;
    private final AtomicBoolean polling = new AtomicBoolean();
    /** The highest version a read has been started for: a poll does not read again what a change's reload reads. */
    private final AtomicLong requested = new AtomicLong(-1);
    private ParsedKeys parsed = ParsedKeys.none();
    private final long timer;
    private volatile Snapshot current;
    private volatile Optional<String> problem = Optional.of("the registry has not been read yet");
    private volatile boolean read;

    public Registry(PayCallbackConfig config, RegistryConfig registryConfig, RegistryStore store, Pool pool,
                    Channels channels, ProviderClients clients, Clock clock, Vertx vertx, MeterRegistry meters) {
        this.configured = RegistryContent.fromConfiguration(config.merchants(), config.platforms());
        this.keys = keys(registryConfig);
        this.store = store;
        this.pool = pool;
        this.channels = channels;
        this.clients = clients;
        this.clock = clock;
        this.vertx = vertx;
        this.failures = Counter.builder("paycallback.registry.reload.failures")
                .description("Reads or builds of the merchant registry that failed; the snapshot before is served")
                .register(meters);
        this.current = new Snapshot(-1, RegistryContent.empty(), configured, configured.nextRetirement(clock.instant()));
        // Before any request is served (the HTTP server opens after start-up): a bad key in properties fails the start.
        ParsedKeys first = parsed.next();
        Serving.Built built = Serving.build(configured, clock.instant(), clock, clients.context(), first);
        channels.replace(built.channels());
        clients.replace(built.clients());
        parsed = first;
        io.micrometer.core.instrument.Gauge.builder("paycallback.registry.version", this, r -> r.current.version())
                .description("The registry version this instance serves (-1 until its first read)").register(meters);
        this.timer = vertx.setPeriodic(Math.max(50, registryConfig.pollInterval().toMillis()), id -> poll());
        poll();
    }

    @PreDestroy
    void stop() {
        vertx.cancelTimer(timer);
    }

    private static KeyEncryptionKeys keys(RegistryConfig config) {
        return KeyEncryptionKeys.parse(config.keyEncryptionKeys().orElse(List.of()),
                "paycallback.registry.key-encryption-keys");
    }

    public Snapshot snapshot() {
        return current;
    }

    /** Why this instance is not serving the registry's latest version, if it is not. */
    public Optional<String> problem() {
        return problem;
    }

    public KeyEncryptionKeys keyEncryptionKeys() {
        return keys;
    }

    public Instant now() {
        return clock.instant();
    }

    private void poll() {
        if (!polling.compareAndSet(false, true)) {
            return;
        }
        Snapshot seen = current;
        store.version()
                .flatMap(version -> version <= requested.get() ? Uni.createFrom().item(Optional.<RegistryStore.Loaded>empty())
                        : read(version).map(Optional::of))
                .emitOn(Infrastructure.getDefaultWorkerPool())
                .invoke(loaded -> {
                    if (loaded.isPresent()) {
                        serve(loaded.get());
                    } else if (seen.nextRetirement().filter(at -> !clock.instant().isBefore(at)).isPresent()) {
                        rebuild(seen);
                    }
                })
                .subscribe().with(ok -> polling.set(false), failure -> {
                    polling.set(false);
                    failures.increment();
                    problem = Optional.of("the registry could not be read: " + failure.getMessage());
                    LOG.warnf("The merchant registry could not be read (%s); serving version %d", failure.getMessage(),
                            current.version());
                });
    }

    /**
     * Reads the registry, known to be at {@code version} at least: only the owners changed since the version served
     * when there are few, else all of it. A failed read lets the next poll try again.
     */
    private Uni<RegistryStore.Loaded> read(long version) {
        requested.accumulateAndGet(version, Math::max);
        long served = current.version();
        Uni<RegistryStore.Loaded> read = served < 0 ? store.load()
                : store.changedSince(served, PARTIAL_READ_LIMIT).flatMap(changed -> changed.isPresent()
                        ? Uni.createFrom().item(changed.get()) : store.load());
        return read.onFailure().invoke(failure -> requested.set(current.version()));
    }

    /** Reads the registry after a change made here and serves it, so that this instance answers with it served. */
    private Uni<Void> reload(long version) {
        return read(version).emitOn(Infrastructure.getDefaultWorkerPool()).invoke(this::serve).replaceWithVoid();
    }

    private void serve(RegistryStore.Loaded loaded) {
        try {
            serveRead(loaded);
        } finally {
            read = true;
        }
    }

    /** Ready once what was read is served (or refused, and the snapshot before kept), not as soon as it is read. */
    private void serveRead(RegistryStore.Loaded loaded) {
        if (loaded.version() <= current.version()) {
            return;
        }
        if (loaded.whole()) {
            serve(loaded.version(), decode(loaded));
            return;
        }
        Snapshot base = current;
        RegistryContent changed = decode(loaded);
        Map<String, MerchantEntry> merchants = new HashMap<>(base.database().merchants());
        Map<String, PlatformEntry> platforms = new HashMap<>(base.database().platforms());
        for (String id : loaded.changed()) {
            merchants.remove(id);
            platforms.remove(id);
        }
        merchants.putAll(changed.merchants());
        platforms.putAll(changed.platforms());
        serveOn(base.version(), loaded.version(), new RegistryContent(merchants, platforms));
    }

    /** A partial read applies to the version it was read after, not to one served meanwhile; the next poll reads again. */
    private synchronized void serveOn(long after, long version, RegistryContent database) {
        if (current.version() == after) {
            serve(version, database);
        } else {
            requested.set(current.version());
        }
    }

    /** The same version again, for a key whose retirement time has come. */
    private void rebuild(Snapshot seen) {
        serve(seen.version(), seen.database());
    }

    /** Whether the database's registry has been read since start: until then only properties' merchants are known. */
    public boolean hasRead() {
        return read;
    }

    private synchronized void serve(long version, RegistryContent database) {
        if (version < current.version()) {
            return;
        }
        List<String> shadowed = new ArrayList<>();
        RegistryContent all = configured.withDatabase(database, shadowed);
        if (!shadowed.isEmpty()) {
            LOG.warnf("Merchants or platforms %s are declared in properties and also in the registry's database:"
                    + " the properties' entries are served", shadowed);
        }
        Instant now = clock.instant();
        ParsedKeys next = parsed.next();
        Serving.Built built;
        try {
            built = Serving.build(all, now, clock, clients.context(), next);
        } catch (IllegalArgumentException e) {
            failures.increment();
            problem = Optional.of("registry version " + version + " cannot be served: " + e.getMessage());
            LOG.errorf("Registry version %d cannot be served (%s); serving version %d", version, e.getMessage(),
                    current.version());
            return;
        }
        channels.replace(built.channels());
        clients.replace(built.clients());
        parsed = next;
        current = new Snapshot(version, database, all, all.nextRetirement(now));
        problem = Optional.empty();
    }

    /** Opens every row; an owner whose secrets do not open is left out, loudly, and the rest served. */
    private RegistryContent decode(RegistryStore.Loaded loaded) {
        Map<String, List<RegistryStore.AccountRow>> byOwner = new HashMap<>();
        loaded.accounts().forEach(row -> byOwner.computeIfAbsent(row.ownerId(), id -> new ArrayList<>()).add(row));
        Map<String, MerchantEntry> merchants = new HashMap<>();
        Map<String, PlatformEntry> platforms = new HashMap<>();
        for (RegistryStore.OwnerRow owner : loaded.owners()) {
            try {
                List<StoredAccount> accounts = byOwner.getOrDefault(owner.id(), List.of()).stream().map(this::open).toList();
                if (owner.kind() == OwnerKind.MERCHANT) {
                    Map<ChannelId, Account> byProvider = new EnumMap<>(ChannelId.class);
                    accounts.forEach(account -> byProvider.put(account.provider(), account.mode() == StoredAccount.Mode.SUB_MERCHANT
                            ? account.subMerchant() : new Account.Direct(account.keys())));
                    merchants.put(owner.id(), new MerchantEntry(owner.id(), owner.enabled(), Source.DATABASE, byProvider));
                } else {
                    Map<ChannelId, ProviderKeys> byProvider = new EnumMap<>(ChannelId.class);
                    accounts.forEach(account -> byProvider.put(account.provider(), account.keys()));
                    platforms.put(owner.id(), new PlatformEntry(owner.id(), owner.enabled(), Source.DATABASE, byProvider));
                }
            } catch (RuntimeException e) {
                failures.increment();
                LOG.errorf("Registry %s %s is left out: %s", owner.kind().label(), owner.id(), e.getMessage());
            }
        }
        return new RegistryContent(merchants, platforms);
    }

    private StoredAccount open(RegistryStore.AccountRow row) {
        byte[] secrets = row.sealed() == null ? null
                : Envelope.open(row.sealed(), StoredAccount.identity(row.ownerId(), row.provider()), keys);
        return new StoredAccount(row.ownerId(), row.provider(), row.mode(), row.platformId(), row.subId(), row.settings(),
                secrets);
    }

    /**
     * Makes one change: {@code edit} is worked out on the registry as the database holds it in the change's transaction
     * (this instance's snapshot when nothing changed since), checked as a start would check it, written with its
     * before and after and {@code audit}'s entry, and served here before this answers.
     */
    public Uni<Written> change(String actor, Function<RegistryContent, Edit> edit, Function<SqlClient, Uni<Long>> audit) {
        return pool.withTransaction(tx -> store.version(tx).flatMap(version -> {
                    Snapshot seen = current;
                    return version == seen.version() ? Uni.createFrom().item(seen.all())
                            : store.load(tx).map(loaded -> configured.withDatabase(decode(loaded), new ArrayList<>()));
                }).flatMap(content -> write(tx, actor, edit.apply(content), content, audit)))
                .onFailure(MySqlErrors::isDuplicateKey).recoverWithItem(failure -> new Written.Conflict(
                        "another change took that id, or that sub-merchant id, first; nothing was written"))
                .flatMap(written -> written instanceof Written.Changed changed ? reload(changed.version()).replaceWith(written)
                        : Uni.createFrom().item(written));
    }

    /** The keys a change is checked with: those served now, and the change's own parsed on top, then dropped. */
    private synchronized ParsedKeys checking() {
        return parsed.next();
    }

    private Uni<Written> write(SqlClient tx, String actor, Edit edit, RegistryContent content,
                               Function<SqlClient, Uni<Long>> audit) {
        Instant now = clock.instant();
        if (edit instanceof Edit.NotFound notFound) {
            return Uni.createFrom().item(new Written.NotFound(notFound.reason()));
        }
        if (edit instanceof Edit.Refused refused) {
            return Uni.createFrom().item(new Written.Refused(refused.reason()));
        }
        if (edit instanceof Edit.Unchanged unchanged) {
            return Uni.createFrom().item(new Written.Unchanged(unchanged.summary()));
        }
        String ownerId;
        boolean isNew;
        OwnerKind kind;
        boolean enabled;
        List<StoredAccount> accounts = new ArrayList<>();
        OwnerView before;
        OwnerView after;
        String action;
        ChannelId provider;
        String summary;
        Optional<String> invalid;
        if (edit instanceof Edit.Merchant merchant) {
            ownerId = merchant.after().id();
            isNew = merchant.before() == null;
            kind = OwnerKind.MERCHANT;
            enabled = merchant.after().enabled();
            merchant.after().accounts().values().forEach(account -> accounts.add(StoredAccount.of(ownerId, account)));
            before = isNew ? null : OwnerView.of(merchant.before(), now);
            after = OwnerView.of(merchant.after(), now);
            action = merchant.action();
            provider = merchant.provider();
            summary = merchant.summary();
            invalid = RegistryChecks.merchant(merchant.after(), content, clock, clients.context(), checking());
        } else {
            Edit.Platform platform = (Edit.Platform) edit;
            ownerId = platform.after().id();
            isNew = platform.before() == null;
            kind = OwnerKind.PLATFORM;
            enabled = platform.after().enabled();
            platform.after().keys().values().forEach(keys -> accounts.add(StoredAccount.ofPlatform(ownerId, keys)));
            before = isNew ? null : OwnerView.of(platform.before(), now);
            after = OwnerView.of(platform.after(), now);
            action = platform.action();
            provider = platform.provider();
            summary = platform.summary();
            invalid = RegistryChecks.platform(platform.after(), content, clock, clients.context(), checking());
        }
        if (invalid.isPresent()) {
            return Uni.createFrom().item(new Written.Refused(invalid.get()));
        }
        if (configured.declares(ownerId)) {
            return Uni.createFrom().item(new Written.Refused(ownerId + " is declared in properties"
                    + " (paycallback.merchants or paycallback.platforms): it is changed there, not through the API"));
        }
        if (isNew && content.declares(ownerId)) {
            return Uni.createFrom().item(new Written.Conflict(ownerId + " exists already (a merchant and a platform"
                    + " share one set of ids: the last segment of a callback path)"));
        }
        List<RegistryStore.AccountRow> rows = new ArrayList<>();
        for (StoredAccount account : accounts) {
            Envelope.Sealed sealed = null;
            if (account.secrets() != null) {
                Optional<KeyEncryptionKeys.Key> kek = keys.active();
                if (kek.isEmpty()) {
                    return Uni.createFrom().item(new Written.Refused("no key-encryption key is configured"
                            + " (paycallback.registry.key-encryption-keys): secrets cannot be stored"));
                }
                sealed = Envelope.seal(account.secrets(), StoredAccount.identity(ownerId, account.provider()), kek.get());
            }
            rows.add(new RegistryStore.AccountRow(ownerId, account.provider(), account.mode(), account.platformId(),
                    account.subId(), account.settings(), sealed));
        }
        Uni<Void> owner = isNew ? store.insertOwner(tx, ownerId, kind, enabled) : store.updateOwner(tx, ownerId, enabled);
        return owner.flatMap(nothing -> store.replaceAccounts(tx, ownerId, rows))
                .flatMap(nothing -> store.recordChange(tx, actor, action, ownerId, provider, json(before), json(after)))
                .flatMap(version -> audit.apply(tx).map(entry -> (Written) new Written.Changed(version, after, summary, entry)));
    }

    /**
     * Moves every sealed row under the first key-encryption key; the secrets' ciphertext stays as it is. The audit
     * is written in the same transaction, told how many rows moved.
     *
     * @return how many rows were re-wrapped
     */
    public Uni<Integer> rewrap(BiFunction<SqlClient, Integer, Uni<Long>> audit) {
        KeyEncryptionKeys.Key target = keys.active().orElseThrow(() -> new IllegalStateException(
                "no key-encryption key is configured (paycallback.registry.key-encryption-keys)"));
        return pool.withTransaction(tx -> store.load(tx).flatMap(loaded -> {
            Uni<Integer> done = Uni.createFrom().item(0);
            for (RegistryStore.AccountRow row : loaded.accounts()) {
                if (row.sealed() == null || row.sealed().kekId().equals(target.id())) {
                    continue;
                }
                Envelope.Sealed rewrapped = Envelope.rewrap(row.sealed(), StoredAccount.identity(row.ownerId(),
                        row.provider()), keys, target);
                done = done.flatMap(count -> store.rewrap(tx, row, rewrapped).map(changed -> count + changed));
            }
            return done.call(count -> audit.apply(tx, count));
        }));
    }

    public Uni<List<RegistryStore.Change>> changes(String ownerId, int limit) {
        return store.changes(ownerId, limit);
    }

    private static String json(OwnerView view) {
        if (view == null) {
            return null;
        }
        try {
            return JSON.writeValueAsString(view);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
