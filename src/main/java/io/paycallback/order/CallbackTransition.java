package io.paycallback.order;

import io.paycallback.inbox.StoredCallback;
import io.paycallback.outbox.DownstreamEvent;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlClient;

import java.util.List;

/**
 * The state machine of one kind of callback, as {@link TransitionHandler} drives it.
 *
 * @param <R> the stored callback
 */
interface CallbackTransition<R extends StoredCallback> {

    /** The callbacks' transitions, in their order, inside the caller's transaction. */
    Uni<List<Transition>> applyAll(SqlClient transaction, List<R> callbacks);

    /** The alert for a callback given up on after its tries (the reason says so). */
    DownstreamEvent alert(R callback, String reason);
}
