package io.paycallback.order;

import io.paycallback.ledger.LeasedTable;
import io.paycallback.ledger.StoredCallbacks;
import io.paycallback.ledger.StoredPayment;
import io.paycallback.outbox.Outbox;
import io.paycallback.retry.BatchTransactions;
import jakarta.inject.Singleton;

/** Leased payment callbacks: each one's {@link PaymentTransition}. */
@Singleton
public class PaymentCallbacks extends TransitionHandler<StoredPayment> {

    public PaymentCallbacks(BatchTransactions batches, Outbox outbox, StoredCallbacks callbacks,
                            PaymentTransition payments) {
        super(batches, outbox, LeasedTable.PAY_CALLBACK_LOG, callbacks::payments, callbacks::payment, payments);
    }
}
