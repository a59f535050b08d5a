package io.paycallback.registry;

import io.paycallback.trade.ChannelId;
import io.smallrye.mutiny.Uni;
import io.vertx.core.buffer.Buffer;
import io.vertx.mutiny.mysqlclient.MySQLClient;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;

/** The registry's tables: owners, their accounts with sealed secrets, and the numbered changes. */
@ApplicationScoped
public class RegistryStore {

    static final String VERSION = "SELECT COALESCE(MAX(id), 0) AS version FROM registry_changes";
    static final String OWNERS = "SELECT id, kind, enabled FROM registry_owners";
    static final String ACCOUNTS = """
            SELECT owner_id, provider, mode, platform_id, sub_id, settings, kek_id, wrapped_key, secrets
            FROM registry_accounts""";
    static final String CHANGED_OWNERS = """
            SELECT DISTINCT owner_id FROM registry_changes WHERE id > ? AND id <= ? LIMIT ?""";
    static final String OWNERS_OF = OWNERS + " WHERE id IN (%s)";
    static final String ACCOUNTS_OF = ACCOUNTS + " WHERE owner_id IN (%s)";
    static final String INSERT_OWNER = """
            INSERT INTO registry_owners (id, kind, enabled, created_at, updated_at) VALUES (?, ?, ?, NOW(3), NOW(3))""";
    static final String UPDATE_OWNER = "UPDATE registry_owners SET enabled = ?, updated_at = NOW(3) WHERE id = ?";
    static final String DELETE_ACCOUNTS = "DELETE FROM registry_accounts WHERE owner_id = ?";
    static final String INSERT_ACCOUNT = """
            INSERT INTO registry_accounts (owner_id, provider, mode, platform_id, sub_id, settings, kek_id, wrapped_key,
                                           secrets, updated_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, NOW(3))""";
    static final String REWRAP = """
            UPDATE registry_accounts SET kek_id = ?, wrapped_key = ? WHERE owner_id = ? AND provider = ? AND kek_id = ?""";
    static final String INSERT_CHANGE = """
            INSERT INTO registry_changes (actor, action, owner_id, provider, before_doc, after_doc, created_at)
            VALUES (?, ?, ?, ?, ?, ?, NOW(3))""";
    static final String CHANGES = """
            SELECT id, created_at, actor, action, owner_id, provider, before_doc, after_doc FROM registry_changes
            WHERE owner_id = ? ORDER BY id DESC LIMIT ?""";

    /** An owner's row. */
    public record OwnerRow(String id, OwnerKind kind, boolean enabled) {
    }

    /** An account's row; {@code sealed} is null for an account without secrets. */
    public record AccountRow(String ownerId, ChannelId provider, StoredAccount.Mode mode, String platformId, String subId,
                             String settings, Envelope.Sealed sealed) {
    }

    /**
     * What one transaction read of the registry, and the version it is at.
     *
     * @param changed the owners a partial read is about (each read whole, or gone); null for the whole registry
     */
    public record Loaded(long version, List<OwnerRow> owners, List<AccountRow> accounts, List<String> changed) {

        public Loaded(long version, List<OwnerRow> owners, List<AccountRow> accounts) {
            this(version, owners, accounts, null);
        }

        public boolean whole() {
            return changed == null;
        }
    }

    /** One change as the history shows it; before and after name secrets by fingerprint only. */
    public record Change(long id, java.time.LocalDateTime at, String actor, String action, String ownerId,
                         String provider, String before, String after) {
    }

    private final Pool pool;

    public RegistryStore(Pool pool) {
        this.pool = pool;
    }

    public Uni<Long> version() {
        return pool.preparedQuery(VERSION).execute().map(rows -> rows.iterator().next().getLong("version"));
    }

    public Uni<Long> version(SqlClient tx) {
        return tx.preparedQuery(VERSION).execute().map(rows -> rows.iterator().next().getLong("version"));
    }

    /** Everything, read in one transaction so that owners, accounts and version agree. */
    public Uni<Loaded> load() {
        return pool.withTransaction(this::load);
    }

    /**
     * The owners changed after version {@code since}, whole, read in one transaction with the version they are at;
     * empty when more than {@code limit} changed, and reading everything is the better way.
     */
    public Uni<Optional<Loaded>> changedSince(long since, int limit) {
        return pool.withTransaction(tx -> version(tx).flatMap(version -> tx.preparedQuery(CHANGED_OWNERS)
                .execute(Tuple.of(since, version, limit + 1)).flatMap(rows -> {
                    List<String> ids = new ArrayList<>();
                    rows.forEach(row -> ids.add(row.getString("owner_id")));
                    if (ids.size() > limit) {
                        return Uni.createFrom().item(Optional.<Loaded>empty());
                    }
                    if (ids.isEmpty()) {
                        return Uni.createFrom().item(Optional.of(new Loaded(version, List.of(), List.of(), List.of())));
                    }
                    String marks = String.join(", ", Collections.nCopies(ids.size(), "?"));
                    Tuple idTuple = Tuple.from(new ArrayList<Object>(ids));
                    return tx.preparedQuery(OWNERS_OF.formatted(marks)).execute(idTuple).flatMap(ownerRows ->
                            tx.preparedQuery(ACCOUNTS_OF.formatted(marks)).execute(idTuple).map(accountRows -> {
                                List<OwnerRow> owners = new ArrayList<>();
                                ownerRows.forEach(row -> owners.add(owner(row)));
                                List<AccountRow> accounts = new ArrayList<>();
                                accountRows.forEach(row -> accounts.add(account(row)));
                                return Optional.of(new Loaded(version, owners, accounts, ids));
                            }));
                })));
    }

    public Uni<Loaded> load(SqlClient tx) {
        return version(tx).flatMap(version -> tx.preparedQuery(OWNERS).execute().flatMap(ownerRows -> {
                    List<OwnerRow> owners = new ArrayList<>();
                    for (Row row : ownerRows) {
                        owners.add(owner(row));
                    }
                    return tx.preparedQuery(ACCOUNTS).execute().map(accountRows -> {
                        List<AccountRow> accounts = new ArrayList<>();
                        for (Row row : accountRows) {
                            accounts.add(account(row));
                        }
                        return new Loaded(version, owners, accounts);
                    });
                }));
    }

    private static OwnerRow owner(Row row) {
        return new OwnerRow(row.getString("id"), OwnerKind.of(row.getString("kind")).orElseThrow(
                () -> new IllegalStateException("registry owner " + row.getString("id")
                        + " has a kind this build does not know")),
                row.getInteger("enabled") != 0);
    }

    private static AccountRow account(Row row) {
        String ownerId = row.getString("owner_id");
        ChannelId provider = ChannelId.fromPath(row.getString("provider")).orElseThrow(() -> new IllegalStateException(
                "registry account of " + ownerId + " names a provider this build does not know"));
        StoredAccount.Mode mode = StoredAccount.Mode.of(row.getString("mode")).orElseThrow(() -> new IllegalStateException(
                "registry account " + ownerId + "/" + provider.path() + " has a mode this build does not know"));
        io.vertx.mutiny.core.buffer.Buffer secrets = row.getBuffer("secrets");
        Envelope.Sealed sealed = secrets == null ? null
                : new Envelope.Sealed(row.getString("kek_id"), row.getBuffer("wrapped_key").getBytes(), secrets.getBytes());
        return new AccountRow(ownerId, provider, mode, row.getString("platform_id"), row.getString("sub_id"),
                row.getString("settings"), sealed);
    }

    public Uni<Void> insertOwner(SqlClient tx, String id, OwnerKind kind, boolean enabled) {
        return tx.preparedQuery(INSERT_OWNER).execute(Tuple.of(id, kind.label(), enabled ? 1 : 0)).replaceWithVoid();
    }

    public Uni<Void> updateOwner(SqlClient tx, String id, boolean enabled) {
        return tx.preparedQuery(UPDATE_OWNER).execute(Tuple.of(enabled ? 1 : 0, id)).replaceWithVoid();
    }

    /** Replaces every account of the owner with these. */
    public Uni<Void> replaceAccounts(SqlClient tx, String ownerId, List<AccountRow> accounts) {
        Uni<Void> deleted = tx.preparedQuery(DELETE_ACCOUNTS).execute(Tuple.of(ownerId)).replaceWithVoid();
        if (accounts.isEmpty()) {
            return deleted;
        }
        List<Tuple> batch = new ArrayList<>();
        for (AccountRow account : accounts) {
            Envelope.Sealed sealed = account.sealed();
            batch.add(Tuple.from(new Object[]{ownerId, account.provider().path(), account.mode().label(),
                    account.platformId(), account.subId(), account.settings(), sealed == null ? null : sealed.kekId(),
                    sealed == null ? null : Buffer.buffer(sealed.wrappedKey()),
                    sealed == null ? null : Buffer.buffer(sealed.ciphertext())}));
        }
        return deleted.flatMap(nothing -> tx.preparedQuery(INSERT_ACCOUNT).executeBatch(batch)).replaceWithVoid();
    }

    /** Moves one account's data key under another key-encryption key, if it is still under {@code fromKekId}. */
    public Uni<Integer> rewrap(SqlClient tx, AccountRow account, Envelope.Sealed rewrapped) {
        return tx.preparedQuery(REWRAP).execute(Tuple.of(rewrapped.kekId(), Buffer.buffer(rewrapped.wrappedKey()),
                account.ownerId(), account.provider().path(), account.sealed().kekId())).map(rows -> rows.rowCount());
    }

    /** Records a change; its id is the registry's new version. */
    public Uni<Long> recordChange(SqlClient tx, String actor, String action, String ownerId, ChannelId provider,
                                  String before, String after) {
        return tx.preparedQuery(INSERT_CHANGE).execute(Tuple.from(new Object[]{actor, action, ownerId,
                        provider == null ? null : provider.path(), before, after}))
                .map(rows -> rows.property(MySQLClient.LAST_INSERTED_ID));
    }

    public Uni<List<Change>> changes(String ownerId, int limit) {
        return pool.preparedQuery(CHANGES).execute(Tuple.of(ownerId, limit)).map(rows -> {
            List<Change> changes = new ArrayList<>();
            for (Row row : rows) {
                changes.add(new Change(row.getLong("id"), row.getLocalDateTime("created_at"), row.getString("actor"),
                        row.getString("action"), row.getString("owner_id"), row.getString("provider"),
                        row.getString("before_doc"), row.getString("after_doc")));
            }
            return changes;
        });
    }
}
