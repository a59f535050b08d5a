package io.paycallback.channel;

/** Which endpoint the provider called: payment results and refund results never share a ledger. */
public enum CallbackKind {
    PAYMENT,
    REFUND
}
