package io.paycallback.ops;

import io.paycallback.delivery.ActionAudit;
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
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Predicate;

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

    /** What an audited change came to: its result, and its audit entry when it changed anything. */
    public record Audited<T>(T result, Optional<Long> entry) {
    }

    private final Pool pool;

    public AuditLog(Pool pool) {
        this.pool = pool;
    }

    /**
     * An operator's change and its entry in one transaction, the entry only when {@code changed} says the change did
     * anything; its log line once committed. The way a one-row action is audited.
     */
    public <T> Uni<Audited<T>> change(String actor, AuditAction action, String target,
                                      Function<SqlClient, Uni<T>> work, Predicate<T> changed) {
        return pool.withTransaction(tx -> work.apply(tx).flatMap(result -> changed.test(result)
                        ? record(tx, actor, action, target, 1).map(entry -> new Audited<>(result, Optional.of(entry)))
                        : Uni.createFrom().item(new Audited<>(result, Optional.<Long>empty()))))
                .invoke(audited -> audited.entry().ifPresent(entry -> logged(entry, actor, action, target, 1)));
    }

    /** A change that answers whether it changed anything; its entry when it did. */
    public Uni<Optional<Long>> change(String actor, AuditAction action, String target, Function<SqlClient, Uni<Boolean>> work) {
        return change(actor, action, target, work, Boolean::booleanValue).map(Audited::entry);
    }

    /**
     * The entry of an action whose transactions are its own (a bulk in batches, a destination's circuit, a registry
     * change): written inside the action's transaction, logged once the action is committed.
     */
    public Entry entry(String actor, AuditAction action, String target) {
        return new Entry(actor, action, target);
    }

    /**
     * One action's entry: its first {@link #write} inserts it inside the caller's transaction and each later one adds
     * its rows inside its own; {@link #logged} writes the log line with every row counted. Used by one action's
     * sequential steps only.
     */
    public final class Entry implements ActionAudit {
        private final String actor;
        private final AuditAction action;
        private final String target;
        private Long id;
        private long rows;

        private Entry(String actor, AuditAction action, String target) {
            this.actor = actor;
            this.action = action;
            this.target = target;
        }

        @Override
        public Uni<Long> write(SqlClient transaction, long batchRows) {
            if (id == null) {
                return record(transaction, actor, action, target, batchRows).invoke(written -> {
                    id = written;
                    rows = batchRows;
                });
            }
            long entry = id;
            return transaction.preparedQuery(ADD_ROWS).execute(Tuple.of(batchRows, entry))
                    .invoke(() -> rows += batchRows).replaceWith(entry);
        }

        /** The log line of the committed action; @return the entry's id */
        public long logged() {
            if (id == null) {
                throw new IllegalStateException(action.label() + " on " + target + " logged before it was written");
            }
            AuditLog.this.logged(id, actor, action, target, rows);
            return id;
        }
    }

    private Uni<Long> record(SqlClient client, String actor, AuditAction action, String target, long rows) {
        String shortTarget = target.length() > TARGET_LENGTH ? target.substring(0, TARGET_LENGTH) : target;
        return client.preparedQuery(INSERT).execute(Tuple.of(actor, action.label(), shortTarget, rows))
                .map(result -> result.property(MySQLClient.LAST_INSERTED_ID));
    }

    private void logged(long entry, String actor, AuditAction action, String target, long rows) {
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
