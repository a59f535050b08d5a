package io.paycallback.delivery;

import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlClient;

/**
 * The audit entry of the operator's action a {@link DestinationControls} method carries out, bound by the caller to its
 * action, operator and target: written inside the transaction that makes the change, so there is no change without its
 * entry. The operations layer answers it with its audit log; this package knows nothing of it.
 */
public interface ActionAudit {

    /** Writes the entry, or adds these rows to it, inside the caller's transaction; @return the entry's id */
    Uni<Long> write(SqlClient transaction, long rows);
}
