package io.paycallback.inbox;

import io.paycallback.trade.OutTradeNo;

/** A reserved callback as the order state machine reads it, with what orders the locks its transition takes. */
public sealed interface StoredCallback permits StoredPayment, StoredRefund {

    long id();

    String merchantId();

    /** Null for a refund notice that names no order. */
    OutTradeNo outTradeNo();
}
