package io.paycallback.order;

import io.paycallback.inbox.CallbackTable;
import io.paycallback.inbox.StoredCallbacks;
import io.paycallback.inbox.StoredRefund;
import io.paycallback.lease.BatchTransactions;
import io.paycallback.outbox.Outbox;
import io.paycallback.tracing.Tracing;
import jakarta.inject.Singleton;

/** Leased refund callbacks: each one's {@link RefundTransition}. */
@Singleton
public class RefundCallbacks extends TransitionHandler<StoredRefund> {

    public RefundCallbacks(BatchTransactions batches, Outbox outbox, StoredCallbacks callbacks,
                           RefundTransition refunds, Tracing tracing) {
        super(batches, outbox, CallbackTable.REFUND.leased(), callbacks::refunds, callbacks::refund, refunds, tracing);
    }
}
