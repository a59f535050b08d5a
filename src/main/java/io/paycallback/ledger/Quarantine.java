package io.paycallback.ledger;

import io.paycallback.channel.CallbackKind;
import io.paycallback.channel.ChannelId;
import io.smallrye.mutiny.Uni;
import io.vertx.core.buffer.Buffer;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Tuple;
import io.vertx.mutiny.sqlclient.Row;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

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

    private static final int REASON_LENGTH = 255;

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

    /** The newest quarantined callbacks, without their bodies. */
    public Uni<List<Map<String, Object>>> list(int limit) {
        return pool.preparedQuery(LIST).execute(Tuple.of(limit)).map(rows -> {
            List<Map<String, Object>> views = new ArrayList<>();
            for (Row row : rows) {
                Map<String, Object> view = new LinkedHashMap<>();
                view.put("id", row.getLong("id"));
                view.put("merchantId", row.getString("merchant_id"));
                view.put("channel", row.getString("channel"));
                view.put("kind", row.getString("kind"));
                view.put("reason", row.getString("reason"));
                view.put("bodySha256", row.getString("body_hash"));
                view.put("bodyLength", row.getInteger("body_length"));
                view.put("createdAt", row.getLocalDateTime("created_at").toString());
                views.add(view);
            }
            return views;
        });
    }
}
