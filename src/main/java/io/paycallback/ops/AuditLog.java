package io.paycallback.ops;

import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.mysqlclient.MySQLClient;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

import java.util.ArrayList;
import java.util.List;

/**
 * The audit trail of operator actions: written in the same transaction as the change it records, so there is no
 * change without its entry, and logged once the change is committed.
 */
@ApplicationScoped
public class AuditLog {

    private static final Logger LOG = Logger.getLogger(AuditLog.class);

    static final String INSERT = """
            INSERT INTO audit_log (actor, action, target, row_count, created_at) VALUES (?, ?, ?, ?, NOW(3))""";
    static final String ADD_ROWS = "UPDATE audit_log SET row_count = row_count + ? WHERE id = ?";
    static final String LIST = """
            SELECT id, created_at, actor, action, target, row_count FROM audit_log WHERE id < ? ORDER BY id DESC LIMIT ?""";

    private static final int TARGET_LENGTH = 512;

    private final Pool pool;

    public AuditLog(Pool pool) {
        this.pool = pool;
    }

    /** Records an action inside the caller's transaction; returns the entry's id. */
    public Uni<Long> record(SqlClient client, String actor, AuditAction action, String target, long rows) {
        String shortTarget = target.length() > TARGET_LENGTH ? target.substring(0, TARGET_LENGTH) : target;
        return client.preparedQuery(INSERT).execute(Tuple.of(actor, action.label(), shortTarget, rows))
                .map(result -> result.property(MySQLClient.LAST_INSERTED_ID));
    }

    /** Adds the rows of one more batch to an entry, inside that batch's transaction. */
    public Uni<Void> addRows(SqlClient client, long entry, long rows) {
        return client.preparedQuery(ADD_ROWS).execute(Tuple.of(rows, entry)).replaceWithVoid();
    }

    /** The log line of a committed action; the same fields as its row. */
    public void logged(long entry, String actor, AuditAction action, String target, long rows) {
        LOG.infof("audit #%d: %s by %s on %s, %d rows", entry, action.label(), actor, target, rows);
    }

    /** The newest entries first; {@code beforeId} pages back. */
    public Uni<List<AuditEntry>> list(long beforeId, int limit) {
        return pool.preparedQuery(LIST).execute(Tuple.of(beforeId, limit)).map(rows -> {
            List<AuditEntry> entries = new ArrayList<>();
            for (Row row : rows) {
                entries.add(new AuditEntry(row.getLong("id"), row.getLocalDateTime("created_at"), row.getString("actor"),
                        AuditAction.of(row.getString("action")), row.getString("target"), row.getLong("row_count")));
            }
            return entries;
        });
    }
}
