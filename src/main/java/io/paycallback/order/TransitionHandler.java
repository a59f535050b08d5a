package io.paycallback.order;

import io.paycallback.ledger.Lease;
import io.paycallback.ledger.Leased;
import io.paycallback.outbox.DownstreamEvent;
import io.paycallback.outbox.Emission;
import io.paycallback.outbox.Emitted;
import io.paycallback.outbox.Outbox;
import io.paycallback.retry.AfterCommit;
import io.paycallback.retry.Attempted;
import io.paycallback.retry.BatchTransactions;
import io.paycallback.retry.LeaseHandler;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlClient;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A callback table's handler: a batch of stored callbacks read with one statement, each transition applied in the
 * order of the orders they lock, all their events written with one multi-row INSERT, in one transaction whose rule
 * (one commit, fenced finish, fall back to one by one) is {@link BatchTransactions}'.
 *
 * @param <R> the stored callback
 */
abstract class TransitionHandler<R> implements LeaseHandler {

    private final BatchTransactions batches;
    private final Outbox outbox;

    TransitionHandler(BatchTransactions batches, Outbox outbox) {
        this.batches = batches;
        this.outbox = outbox;
    }

    abstract Uni<List<R>> load(SqlClient transaction, List<Long> ids);

    abstract long id(R callback);

    /**
     * The key of the order the callback's transition locks, so batches tried row by row lock orders in one global
     * order. A one-statement transition locks in its own order; should two instances' batches then meet in a
     * deadlock, the loser's batch is tried row by row.
     */
    abstract Comparator<R> lockOrder();

    /** The callbacks' transitions, in their order, inside the transaction. */
    abstract Uni<List<Transition>> applyAll(SqlClient transaction, List<R> callbacks);

    abstract Uni<List<Emission>> alert(SqlClient transaction, long id, String reason);

    @Override
    public boolean batches() {
        return true;
    }

    @Override
    public List<String> results() {
        return Arrays.stream(Transition.Result.values()).filter(result -> result != Transition.Result.DEAD_LETTER)
                .map(Transition.Result::tag).toList();
    }

    @Override
    public Attempted attempt(List<Leased> batch) {
        return batches.run(batch.stream().map(Leased::lease).toList(), this::applyBatch);
    }

    private Uni<BatchTransactions.Applied> applyBatch(SqlClient transaction, List<Lease> leases) {
        Map<Long, Lease> byId = new HashMap<>();
        leases.forEach(lease -> byId.put(lease.id(), lease));
        if (byId.size() != leases.size()) {
            return Uni.createFrom().failure(new IllegalStateException("a row is twice in one batch"));
        }
        List<BatchTransactions.Step> steps = new ArrayList<>(leases.size());
        List<DownstreamEvent> events = new ArrayList<>();
        return load(transaction, new ArrayList<>(byId.keySet()))
                .map(callbacks -> callbacks.stream().sorted(lockOrder()).toList())
                .flatMap(callbacks -> applyAll(transaction, callbacks).invoke(transitions -> {
                    for (int i = 0; i < callbacks.size(); i++) {
                        Transition transition = transitions.get(i);
                        Lease lease = byId.get(id(callbacks.get(i)));
                        steps.add(transition.result() == Transition.Result.DEAD_LETTER
                                ? BatchTransactions.Step.dead(lease, transition.reason())
                                : BatchTransactions.Step.done(lease, transition.result().tag()));
                        events.addAll(transition.events());
                    }
                }))
                .chain(() -> outbox.emitAll(transaction, events))
                .map(emitted -> new BatchTransactions.Applied(steps, emitted));
    }

    @Override
    public Uni<AfterCommit> giveUp(SqlClient transaction, Lease lease, String reason) {
        return alert(transaction, lease.id(), reason).map(Emitted::new);
    }
}
