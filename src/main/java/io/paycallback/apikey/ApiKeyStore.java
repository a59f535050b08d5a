package io.paycallback.apikey;

import io.paycallback.auth.ApiKeyToken;
import io.smallrye.mutiny.Uni;
import io.vertx.core.buffer.Buffer;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** The {@code api_keys} table. */
@ApplicationScoped
public class ApiKeyStore {

    /** Rows are never deleted: these two counts change with every key made or revoked. */
    static final String STATE = "SELECT COUNT(*) AS made, COUNT(revoked_at) AS revoked FROM api_keys";
    static final String LIVE = """
            SELECT id, name, secret_sha256, merchants FROM api_keys WHERE revoked_at IS NULL""";
    static final String LIST = """
            SELECT id, name, merchants, created_by, created_at, revoked_by, revoked_at, last_used_at
            FROM api_keys ORDER BY created_at DESC, id""";
    static final String INSERT = """
            INSERT INTO api_keys (id, name, secret_sha256, merchants, created_by, created_at)
            VALUES (?, ?, ?, ?, ?, NOW(3))""";
    static final String REVOKE = """
            UPDATE api_keys SET revoked_by = ?, revoked_at = NOW(3) WHERE id = ? AND revoked_at IS NULL""";
    static final String TOUCH = "UPDATE api_keys SET last_used_at = NOW(3) WHERE id = ?";

    /** What tells whether the table changed. */
    record State(long made, long revoked) {
    }

    /** A key that opens requests. */
    record Live(String id, String name, byte[] digest, List<String> merchants) {
    }

    private final Pool pool;

    public ApiKeyStore(Pool pool) {
        this.pool = pool;
    }

    Uni<State> state() {
        return pool.preparedQuery(STATE).execute().map(rows -> {
            Row row = rows.iterator().next();
            return new State(row.getLong("made"), row.getLong("revoked"));
        });
    }

    Uni<List<Live>> live() {
        return pool.preparedQuery(LIVE).execute().map(rows -> {
            List<Live> keys = new ArrayList<>();
            for (Row row : rows) {
                keys.add(new Live(row.getString("id"), row.getString("name"), row.getBuffer("secret_sha256").getBytes(),
                        merchants(row.getString("merchants"))));
            }
            return keys;
        });
    }

    Uni<List<ApiKey>> list() {
        return pool.preparedQuery(LIST).execute().map(rows -> {
            List<ApiKey> keys = new ArrayList<>();
            for (Row row : rows) {
                String id = row.getString("id");
                keys.add(new ApiKey(id, ApiKeyToken.prefix(id), row.getString("name"), merchants(row.getString("merchants")),
                        row.getString("created_by"), row.getLocalDateTime("created_at"), row.getString("revoked_by"),
                        row.getLocalDateTime("revoked_at"), row.getLocalDateTime("last_used_at")));
            }
            return keys;
        });
    }

    Uni<Void> insert(SqlClient tx, String id, String name, byte[] digest, List<String> merchants, String actor) {
        return tx.preparedQuery(INSERT).execute(Tuple.of(id, name, Buffer.buffer(digest), String.join(" ", merchants), actor))
                .replaceWithVoid();
    }

    /** @return whether it was live until now */
    Uni<Boolean> revoke(SqlClient tx, String id, String actor) {
        return tx.preparedQuery(REVOKE).execute(Tuple.of(actor, id)).map(result -> result.rowCount() == 1);
    }

    Uni<Void> touch(List<String> ids) {
        return pool.preparedQuery(TOUCH).executeBatch(ids.stream().map(Tuple::of).toList()).replaceWithVoid();
    }

    private static List<String> merchants(String stored) {
        return stored.isBlank() ? List.of() : Arrays.asList(stored.strip().split(" +"));
    }
}
