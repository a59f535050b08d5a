package io.paycallback.order;

import io.paycallback.ledger.LeasedTable;
import io.paycallback.ledger.StoredCallbacks;
import io.paycallback.ledger.StoredPayment;
import io.paycallback.outbox.Emission;
import io.paycallback.outbox.Outbox;
import io.paycallback.retry.BatchTransactions;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlClient;
import jakarta.inject.Singleton;

import java.util.Comparator;
import java.util.List;

/** Leased payment callbacks: each one's {@link PaymentTransition}. */
@Singleton
public class PaymentCallbacks extends TransitionHandler<StoredPayment> {

    private static final Comparator<StoredPayment> LOCK_ORDER = Comparator.comparing(StoredPayment::merchantId)
            .thenComparing(StoredPayment::outTradeNo).thenComparingLong(StoredPayment::id);

    private final StoredCallbacks callbacks;
    private final PaymentTransition payments;

    public PaymentCallbacks(BatchTransactions batches, Outbox outbox, StoredCallbacks callbacks,
                            PaymentTransition payments) {
        super(batches, outbox);
        this.callbacks = callbacks;
        this.payments = payments;
    }

    @Override
    public LeasedTable table() {
        return LeasedTable.PAY_CALLBACK_LOG;
    }

    @Override
    Uni<List<StoredPayment>> load(SqlClient transaction, List<Long> ids) {
        return callbacks.payments(transaction, ids);
    }

    @Override
    long id(StoredPayment callback) {
        return callback.id();
    }

    @Override
    Comparator<StoredPayment> lockOrder() {
        return LOCK_ORDER;
    }

    @Override
    Uni<List<Transition>> applyAll(SqlClient transaction, List<StoredPayment> callbacks) {
        return payments.applyAll(transaction, callbacks);
    }

    @Override
    Uni<List<Emission>> alert(SqlClient transaction, long id, String reason) {
        return callbacks.payment(transaction, id).flatMap(payment -> payments.giveUp(transaction, payment, reason));
    }
}
