package io.paycallback.delivery;

/**
 * A try of an outbox event that did not end with the row done: the destination did not take it, or it did and the
 * row could not be marked done. Carries the attempt, so the failure's own transaction (reschedule or dead letter)
 * records it beside the outcome.
 */
public class DeliveryFailedException extends RuntimeException {

    private final transient DeliveryAttempt attempt;

    DeliveryFailedException(DeliveryAttempt attempt, Throwable cause) {
        super(cause == null ? attempt.describe() : attempt.describe() + "; then " + describe(cause), cause);
        this.attempt = attempt;
    }

    public DeliveryAttempt attempt() {
        return attempt;
    }

    private static String describe(Throwable failure) {
        return failure.getClass().getSimpleName() + (failure.getMessage() == null ? "" : ": " + failure.getMessage());
    }
}
