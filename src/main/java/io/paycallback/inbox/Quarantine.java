package io.paycallback.inbox;

import io.paycallback.channel.CallbackKind;
import io.paycallback.db.MySqlErrors;
import io.paycallback.db.UnknownValueException;
import io.paycallback.trade.ChannelId;
import io.smallrye.mutiny.Uni;
import io.vertx.core.buffer.Buffer;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Keeps signed callbacks that we could not parse, for a person to look at. One row per distinct body: the provider
 * pushes the same body again and again, and the copies add nothing.
 */
@ApplicationScoped
public class Quarantine {

    static final String INSERT = """
            INSERT INTO quarantine (merchant_id, channel, kind, reason, body_hash, body_length, raw_body, created_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, NOW(3))""";

    static final String LIST = """
            SELECT id, merchant_id, channel, kind, reason, body_hash, body_length, created_at
            FROM quarantine ORDER BY id DESC LIMIT ?""";

    static final String HELD_FOR = "SELECT id FROM quarantine WHERE channel = ? AND merchant_id = ? ORDER BY id LIMIT ?";
    static final String FIND = "SELECT merchant_id, channel, kind, raw_body FROM quarantine WHERE id = ?";
    static final String RELEASE = "DELETE FROM quarantine WHERE id = ?";

    private static final int REASON_LENGTH = 255;

    /** A quarantined callback with its body, as it was verified on arrival. */
    public record Held(long id, String merchantId, String channel, CallbackKind kind, byte[] body) {
    }

    private final Pool pool;

    public Quarantine(Pool pool) {
        this.pool = pool;
    }

    public Uni<Void> hold(String merchantId, ChannelId channel, CallbackKind kind, String reason, BodyDigest digest,
                          byte[] rawBody) {
        Tuple row = Tuple.tuple()
                .addString(merchantId)
                .addString(channel.path())
                .addString(kind.name())
                .addString(reason.length() > REASON_LENGTH ? reason.substring(0, REASON_LENGTH) : reason)
                .addString(digest.hex())
                .addInteger(rawBody.length)
                .addValue(Buffer.buffer(rawBody));
        return pool.preparedQuery(INSERT).execute(row)
                .onFailure(MySqlErrors::isDuplicateKey).recoverWithNull()
                .replaceWithVoid();
    }

    /** The ids of what is held for a merchant or platform on a channel, oldest first. */
    public Uni<List<Long>> heldFor(ChannelId channel, String merchantId, int limit) {
        return pool.preparedQuery(HELD_FOR).execute(Tuple.of(channel.path(), merchantId, limit)).map(rows -> {
            List<Long> ids = new ArrayList<>();
            rows.forEach(row -> ids.add(row.getLong("id")));
            return ids;
        });
    }

    public Uni<Optional<Held>> find(long id) {
        return pool.preparedQuery(FIND).execute(Tuple.of(id)).map(rows -> {
            var iterator = rows.iterator();
            if (!iterator.hasNext()) {
                return Optional.empty();
            }
            Row row = iterator.next();
            return Optional.of(new Held(id, row.getString("merchant_id"), row.getString("channel"),
                    kind(row.getString("kind")), row.getBuffer("raw_body").getBytes()));
        });
    }

    /** @return false when another operator released it first */
    private static CallbackKind kind(String stored) {
        for (CallbackKind kind : CallbackKind.values()) {
            if (kind.name().equals(stored)) {
                return kind;
            }
        }
        throw new UnknownValueException("quarantine.kind", stored);
    }

    public Uni<Boolean> release(SqlClient client, long id) {
        return client.preparedQuery(RELEASE).execute(Tuple.of(id)).map(rows -> rows.rowCount() == 1);
    }

    /** The newest quarantined callbacks, without their bodies. */
    public Uni<List<QuarantinedCallback>> list(int limit) {
        return pool.preparedQuery(LIST).execute(Tuple.of(limit)).map(rows -> {
            List<QuarantinedCallback> found = new ArrayList<>();
            for (Row row : rows) {
                found.add(new QuarantinedCallback(row.getLong("id"), row.getString("merchant_id"), row.getString("channel"),
                        row.getString("kind"), row.getString("reason"), row.getString("body_hash"),
                        row.getInteger("body_length"), row.getLocalDateTime("created_at")));
            }
            return found;
        });
    }
}
