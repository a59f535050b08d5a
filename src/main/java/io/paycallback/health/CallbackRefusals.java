package io.paycallback.health;

/**
 * This instance's running totals of the callbacks it turned away, since start. The callback package counts them and
 * implements this, so that what reads them for an operator never depends on the edge that receives callbacks.
 */
public interface CallbackRefusals {

    /** Callbacks answered 503 because the gate was full. */
    long rejectedBusy();

    /** Callbacks answered 500 because the database did not confirm their reservation. */
    long storeFailed();
}
