package io.paycallback.trade;

/**
 * An amount or currency the ledger cannot hold as given: an unknown currency, one with more fraction digits than the
 * ledger keeps, or an amount finer than its currency. The message is a fixed phrase, never the input itself.
 */
public final class InvalidMoney extends Exception {

    InvalidMoney(String reason) {
        super(reason, null, false, false);
    }
}
