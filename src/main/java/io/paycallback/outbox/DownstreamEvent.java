package io.paycallback.outbox;

import java.math.BigDecimal;

/**
 * One business effect, as it is sent downstream: one record per event type, each with only the fields it has, and
 * the trade numbers typed so that they cannot be swapped. The accessors of this interface are the wire's view
 * ({@link Outbox} writes them as the documented body), null where the wire field stays empty.
 */
public sealed interface DownstreamEvent permits DownstreamEvent.OrderPaid, DownstreamEvent.RefundRequested,
        DownstreamEvent.RefundSubmitted, DownstreamEvent.RefundSucceeded, DownstreamEvent.RefundFailed,
        DownstreamEvent.Alert {

    /**
     * What caused it (for example {@code pay:42}); with the type it names the event for good, so writing it twice is
     * impossible and its Idempotency-Key is stable.
     */
    String source();

    EventType type();

    /** What it is about; each record narrows it to the kind it has. */
    Subject subject();

    default String id() {
        return source() + ":" + type().wire();
    }

    default BigDecimal amount() {
        return subject().amount();
    }

    default BigDecimal refundAmount() {
        return subject().refundAmount();
    }

    default BigDecimal refundedTotal() {
        return null;
    }

    default String reason() {
        return null;
    }

    record OrderPaid(String source, Subject.Payment subject) implements DownstreamEvent {

        @Override
        public EventType type() {
            return EventType.ORDER_PAID;
        }
    }

    record RefundRequested(String source, Subject.Refund subject, String reason) implements DownstreamEvent {

        @Override
        public EventType type() {
            return EventType.REFUND_REQUESTED;
        }
    }

    record RefundSubmitted(String source, Subject.Refund subject) implements DownstreamEvent {

        @Override
        public EventType type() {
            return EventType.REFUND_SUBMITTED;
        }
    }

    /**
     * @param added         how much this refund added to the payment's refunded total (the wire's amount), so that
     *                      over a payment's refund events the amounts add up to that total
     * @param refundedTotal the payment's refunded total after this refund
     */
    record RefundSucceeded(String source, Subject.Refund subject, BigDecimal added, BigDecimal refundedTotal)
            implements DownstreamEvent {

        @Override
        public EventType type() {
            return EventType.REFUND_SUCCEEDED;
        }

        @Override
        public BigDecimal amount() {
            return added;
        }
    }

    record RefundFailed(String source, Subject.Refund subject, String reason) implements DownstreamEvent {

        @Override
        public EventType type() {
            return EventType.REFUND_FAILED;
        }
    }

    /** For a person: something the service could not settle on its own. */
    record Alert(String source, Subject subject, String reason) implements DownstreamEvent {

        @Override
        public EventType type() {
            return EventType.ALERT;
        }
    }
}
