package io.paycallback.order;

import io.paycallback.inbox.CallbackTable;
import io.paycallback.inbox.StoredCallbacks;
import io.paycallback.inbox.StoredPayment;
import io.paycallback.lease.BatchTransactions;
import io.paycallback.outbox.Outbox;
import io.paycallback.tracing.Tracing;
import jakarta.inject.Singleton;

/** Leased payment callbacks: each one's {@link PaymentTransition}. */
@Singleton
public class PaymentCallbacks extends TransitionHandler<StoredPayment> {

    public PaymentCallbacks(BatchTransactions batches, Outbox outbox, StoredCallbacks callbacks,
                            PaymentTransition payments, Tracing tracing) {
        super(batches, outbox, CallbackTable.PAYMENT.leased(), callbacks::payments, callbacks::payment, payments, tracing);
    }
}
