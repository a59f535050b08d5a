package io.paycallback.order;

import io.paycallback.ledger.LeasedTable;
import io.paycallback.ledger.StoredCallbacks;
import io.paycallback.ledger.StoredRefund;
import io.paycallback.outbox.Emission;
import io.paycallback.outbox.Outbox;
import io.paycallback.retry.BatchTransactions;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlClient;
import jakarta.inject.Singleton;

import java.util.Comparator;
import java.util.List;

/** Leased refund callbacks: each one's {@link RefundTransition}. */
@Singleton
public class RefundCallbacks extends TransitionHandler<StoredRefund> {

    // A refund may not name its order; it then locks its payment's, which this order cannot know: a deadlock it
    // causes rolls the batch back and its rows are tried alone.
    private static final Comparator<StoredRefund> LOCK_ORDER = Comparator.comparing(StoredRefund::merchantId)
            .thenComparing(StoredRefund::outTradeNo, Comparator.nullsFirst(Comparator.naturalOrder()))
            .thenComparingLong(StoredRefund::id);

    private final StoredCallbacks callbacks;
    private final RefundTransition refunds;

    public RefundCallbacks(BatchTransactions batches, Outbox outbox, StoredCallbacks callbacks,
                           RefundTransition refunds) {
        super(batches, outbox);
        this.callbacks = callbacks;
        this.refunds = refunds;
    }

    @Override
    public LeasedTable table() {
        return LeasedTable.REFUND_CALLBACK_LOG;
    }

    @Override
    Uni<List<StoredRefund>> load(SqlClient transaction, List<Long> ids) {
        return callbacks.refunds(transaction, ids);
    }

    @Override
    long id(StoredRefund callback) {
        return callback.id();
    }

    @Override
    Comparator<StoredRefund> lockOrder() {
        return LOCK_ORDER;
    }

    @Override
    Uni<List<Transition>> applyAll(SqlClient transaction, List<StoredRefund> callbacks) {
        return Multi.createFrom().iterable(callbacks)
                .onItem().transformToUniAndConcatenate(callback -> refunds.apply(transaction, callback))
                .collect().asList();
    }

    @Override
    Uni<List<Emission>> alert(SqlClient transaction, long id, String reason) {
        return callbacks.refund(transaction, id).flatMap(refund -> refunds.giveUp(transaction, refund, reason));
    }
}
