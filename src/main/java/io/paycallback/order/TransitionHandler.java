package io.paycallback.order;

import io.paycallback.inbox.StoredCallback;
import io.paycallback.lease.AfterCommit;
import io.paycallback.lease.Attempted;
import io.paycallback.lease.BatchTransactions;
import io.paycallback.lease.Lease;
import io.paycallback.lease.LeaseHandler;
import io.paycallback.lease.Leased;
import io.paycallback.lease.LeasedTable;
import io.paycallback.outbox.DownstreamEvent;
import io.paycallback.outbox.Emitted;
import io.paycallback.outbox.Outbox;
import io.paycallback.trade.OutTradeNo;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlClient;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;

/**
 * A callback table's handler: a batch of stored callbacks read with one statement, each transition applied in the
 * order of the orders they lock, all their events written with one multi-row INSERT, in one transaction whose rule
 * (one commit, fenced finish, fall back to one by one) is {@link BatchTransactions}'. A table differs only in where
 * its rows are read and which {@link CallbackTransition} settles them.
 *
 * @param <R> the stored callback
 */
abstract class TransitionHandler<R extends StoredCallback> implements LeaseHandler {

    /**
     * The key of the order a transition locks, so batches tried row by row lock orders in one global order. A
     * one-statement transition locks in its own order; should two instances' batches then meet in a deadlock, the
     * loser's batch is tried row by row. A refund may not name its order; it then locks its payment's, which this
     * order cannot know: a deadlock it causes rolls the batch back and its rows are tried alone.
     */
    private static final Comparator<StoredCallback> LOCK_ORDER = Comparator.comparing(StoredCallback::merchantId)
            .thenComparing(callback -> OutTradeNo.valueOrNull(callback.outTradeNo()),
                    Comparator.nullsFirst(Comparator.naturalOrder()))
            .thenComparingLong(StoredCallback::id);

    private final BatchTransactions batches;
    private final Outbox outbox;
    private final LeasedTable table;
    private final BiFunction<SqlClient, List<Long>, Uni<List<R>>> load;
    private final BiFunction<SqlClient, Long, Uni<R>> find;
    private final CallbackTransition<R> callbackTransition;

    TransitionHandler(BatchTransactions batches, Outbox outbox, LeasedTable table,
                      BiFunction<SqlClient, List<Long>, Uni<List<R>>> load, BiFunction<SqlClient, Long, Uni<R>> find,
                      CallbackTransition<R> transition) {
        this.batches = batches;
        this.outbox = outbox;
        this.table = table;
        this.load = load;
        this.find = find;
        this.callbackTransition = transition;
    }

    @Override
    public LeasedTable table() {
        return table;
    }

    @Override
    public boolean batches() {
        return true;
    }

    @Override
    public List<String> results() {
        return Arrays.stream(Transition.Kind.values()).filter(result -> result != Transition.Kind.DEAD_LETTER)
                .map(Transition.Kind::tag).toList();
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
        return load.apply(transaction, new ArrayList<>(byId.keySet()))
                .map(callbacks -> callbacks.stream().sorted(LOCK_ORDER).toList())
                .flatMap(callbacks -> callbackTransition.applyAll(transaction, callbacks).invoke(transitions -> {
                    for (int i = 0; i < callbacks.size(); i++) {
                        Transition transition = transitions.get(i);
                        Lease lease = byId.get(callbacks.get(i).id());
                        steps.add(transition.result() == Transition.Kind.DEAD_LETTER
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
        return find.apply(transaction, lease.id())
                .flatMap(callback -> outbox.emit(transaction, callbackTransition.alert(callback, "dead letter: " + reason)))
                .map(Emitted::new);
    }
}
