package io.paycallback.delivery;

import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlClient;

/**
 * How the caller of a {@link DestinationControls} action records it: inside the transaction that makes the change,
 * so there is no change without its entry. The operations layer answers it with its audit log and the operator's
 * name; this package knows nothing of either.
 */
public interface ActionAudit {

    /** Records the action in the caller's transaction; @return the entry's id */
    Uni<Long> record(SqlClient transaction, DestinationAuditAction action, String target, long rows);

    /** Adds the rows of one more batch of the action to its entry, inside that batch's transaction. */
    Uni<Void> addRows(SqlClient transaction, long entry, long rows);
}
