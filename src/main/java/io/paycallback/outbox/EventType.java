package io.paycallback.outbox;

/** The downstream event types of the interface contract. */
public final class EventType {

    public static final String ORDER_PAID = "order.paid";
    public static final String REFUND_REQUESTED = "refund.requested";
    public static final String REFUND_SUBMITTED = "refund.submitted";
    public static final String REFUND_SUCCEEDED = "refund.succeeded";
    public static final String REFUND_FAILED = "refund.failed";
    public static final String ALERT = "alert";

    private EventType() {
    }
}
