package io.paycallback.inbox;

import io.paycallback.tracing.Traceparent;

import java.util.Optional;

import io.paycallback.trade.OutTradeNo;

/** A reserved callback as the order state machine reads it, with what orders the locks its transition takes. */
public sealed interface StoredCallback permits StoredPayment, StoredRefund {

    long id();

    String merchantId();

    /** Null for a refund notice that names no order. */
    OutTradeNo outTradeNo();

    /** The span that stored it (its callback's), which its transition continues; empty when none was stored. */
    Optional<Traceparent> traceparent();
}
