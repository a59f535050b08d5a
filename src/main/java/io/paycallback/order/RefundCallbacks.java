package io.paycallback.order;

import io.paycallback.ledger.LeasedTable;
import io.paycallback.ledger.StoredCallbacks;
import io.paycallback.ledger.StoredRefund;
import io.paycallback.outbox.Outbox;
import io.paycallback.retry.BatchTransactions;
import jakarta.inject.Singleton;

/** Leased refund callbacks: each one's {@link RefundTransition}. */
@Singleton
public class RefundCallbacks extends TransitionHandler<StoredRefund> {

    public RefundCallbacks(BatchTransactions batches, Outbox outbox, StoredCallbacks callbacks,
                           RefundTransition refunds) {
        super(batches, outbox, LeasedTable.REFUND_CALLBACK_LOG, callbacks::refunds, callbacks::refund, refunds);
    }
}
