package io.paycallback.order;

import io.paycallback.outbox.DownstreamEvent;

import java.util.List;
import java.util.Locale;

/**
 * What one callback did to the business state, inside its transaction.
 *
 * @param events the downstream events it causes, for the caller to write in the same transaction
 */
public record Transition(Kind result, String reason, List<DownstreamEvent> events) {

    public enum Kind {
        PAID,
        DUPLICATE,
        REFUND_REQUESTED,
        REFUND_SETTLED,
        /** Never retried (an amount mismatch): the row is dead-lettered and a person is alerted. */
        DEAD_LETTER;

        public String tag() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    public static Transition of(Kind result, List<DownstreamEvent> events) {
        return new Transition(result, null, events);
    }

    /** Nothing changed: the callback was settled before, and its effects were emitted then. */
    public static Transition duplicate() {
        return of(Kind.DUPLICATE, List.of());
    }

    /** Never retried: the row is dead-lettered and a person is alerted. */
    public static Transition deadLetter(String reason, DownstreamEvent alert) {
        return new Transition(Kind.DEAD_LETTER, reason, List.of(alert));
    }
}
