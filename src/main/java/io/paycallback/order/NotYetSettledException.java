package io.paycallback.order;

/** The callback cannot be settled now (unknown order, payment not processed yet): roll back and try again later. */
public class NotYetSettledException extends RuntimeException {

    public NotYetSettledException(String message) {
        super(message);
    }
}
