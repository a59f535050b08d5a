package io.paycallback.order;

import io.paycallback.inbox.StoredCallback;
import io.paycallback.lease.AfterCommit;
import io.paycallback.lease.Attempted;
import io.paycallback.lease.BatchTransactions;
import io.paycallback.lease.RowLease;
import io.paycallback.lease.LeaseHandler;
import io.paycallback.lease.LeasedRow;
import io.paycallback.lease.LeasedTable;
import io.paycallback.lease.Tried;
import io.paycallback.outbox.DownstreamEvent;
import io.paycallback.outbox.Emitted;
import io.paycallback.outbox.Outbox;
import io.paycallback.trade.OutTradeNo;
import io.paycallback.tracing.SpanAttribute;
import io.paycallback.tracing.SpanName;
import io.paycallback.tracing.Traceparent;
import io.paycallback.tracing.Traced;
import io.paycallback.tracing.Tracing;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlClient;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
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
    private final Tracing tracing;

    TransitionHandler(BatchTransactions batches, Outbox outbox, LeasedTable table,
                      BiFunction<SqlClient, List<Long>, Uni<List<R>>> load, BiFunction<SqlClient, Long, Uni<R>> find,
                      CallbackTransition<R> transition, Tracing tracing) {
        this.batches = batches;
        this.tracing = tracing;
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

    /**
     * The batch is a trace of its own, current while it runs (its log lines carry its trace id), linked both ways to
     * each row's span; a row's span continues its callback's trace and ends with what its row came to once the
     * batch is over, committed or not. A row tried again alone after the batch rolled back gets a second span.
     */
    @Override
    public Attempted attempt(List<LeasedRow> batch) {
        Traced batchSpan = tracing.startRoot(SpanName.TRANSITION_BATCH)
                .set(SpanAttribute.TABLE, table.table())
                .set(SpanAttribute.BATCH_SIZE, batch.size());
        Map<Long, Traced> rowSpans = new ConcurrentHashMap<>();
        Attempted attempted;
        try (Traced.Current ignored = batchSpan.makeCurrent()) {
            attempted = batches.run(batch.stream().map(LeasedRow::lease).toList(),
                    (transaction, leases) -> applyBatch(transaction, leases, batchSpan, rowSpans));
        }
        for (Tried tried : attempted.rows()) {
            Traced rowSpan = rowSpans.remove(tried.lease().id());
            if (rowSpan != null) {
                ended(rowSpan, tried);
            }
        }
        batchSpan.end();
        return attempted;
    }

    private static void ended(Traced span, Tried tried) {
        if (tried instanceof Tried.Done done) {
            span.set(SpanAttribute.OUTCOME, done.result());
        } else if (tried instanceof Tried.Dead dead) {
            span.set(SpanAttribute.OUTCOME, "dead").failed(dead.reason());
        } else if (tried instanceof Tried.Failed failed) {
            span.set(SpanAttribute.OUTCOME, "failed").failed(failed.failure().getClass().getSimpleName());
        } else if (tried instanceof Tried.Lost) {
            span.set(SpanAttribute.OUTCOME, "lost");
        } else if (tried instanceof Tried.Deferred deferred) {
            span.set(SpanAttribute.OUTCOME, deferred.result());
        }
        span.end();
    }

    private Uni<BatchTransactions.Applied> applyBatch(SqlClient transaction, List<RowLease> leases, Traced batchSpan,
                                                      Map<Long, Traced> rowSpans) {
        Map<Long, RowLease> byId = new HashMap<>();
        leases.forEach(lease -> byId.put(lease.id(), lease));
        if (byId.size() != leases.size()) {
            return Uni.createFrom().failure(new IllegalStateException("a row is twice in one batch"));
        }
        List<BatchTransactions.Step> steps = new ArrayList<>(leases.size());
        List<DownstreamEvent> events = new ArrayList<>();
        Map<DownstreamEvent, Optional<Traceparent>> causes = new IdentityHashMap<>();
        return load.apply(transaction, new ArrayList<>(byId.keySet()))
                .map(callbacks -> callbacks.stream().sorted(LOCK_ORDER).toList())
                .invoke(callbacks -> callbacks.forEach(callback -> startRow(callback, batchSpan, rowSpans)))
                .flatMap(callbacks -> callbackTransition.applyAll(transaction, callbacks).invoke(transitions -> {
                    for (int i = 0; i < callbacks.size(); i++) {
                        R callback = callbacks.get(i);
                        Transition transition = transitions.get(i);
                        RowLease lease = byId.get(callback.id());
                        steps.add(transition.result() == Transition.Kind.DEAD_LETTER
                                ? BatchTransactions.Step.dead(lease, transition.reason())
                                : BatchTransactions.Step.done(lease, transition.result().tag()));
                        // Without a span here (tracing off on this instance), the events still join the callback's.
                        Optional<Traceparent> cause = rowSpans.get(callback.id()).traceparent()
                                .or(callback::traceparent);
                        transition.events().forEach(event -> causes.put(event, cause));
                        events.addAll(transition.events());
                    }
                }))
                .chain(() -> outbox.emitAll(transaction, events, event -> causes.getOrDefault(event, Optional.empty())))
                .map(emitted -> new BatchTransactions.Applied(steps, emitted));
    }

    /** The row's span for this try; one left open by a try of the batch that rolled back ends as such. */
    private void startRow(R callback, Traced batchSpan, Map<Long, Traced> rowSpans) {
        Traced rolledBack = rowSpans.remove(callback.id());
        if (rolledBack != null) {
            rolledBack.set(SpanAttribute.OUTCOME, "rolled_back").end();
        }
        Traced span = tracing.startFrom(SpanName.TRANSITION, callback.traceparent())
                .set(SpanAttribute.TABLE, table.table())
                .set(SpanAttribute.ROW, callback.id());
        Tracing.link(batchSpan, span);
        rowSpans.put(callback.id(), span);
    }

    @Override
    public Uni<AfterCommit> giveUp(SqlClient transaction, RowLease lease, String reason) {
        return find.apply(transaction, lease.id())
                .flatMap(callback -> outbox.emit(transaction, callbackTransition.alert(callback, "dead letter: " + reason)))
                .map(Emitted::new);
    }
}
