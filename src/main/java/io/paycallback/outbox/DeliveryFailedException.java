package io.paycallback.outbox;

/** A try of an outbox event that the destination did not take; its message says why, never with the answer's body. */
public class DeliveryFailedException extends RuntimeException {

    DeliveryFailedException(DeliveryAttempt attempt) {
        super(attempt.describe());
    }
}
