package io.paycallback.order;

import io.paycallback.outbox.Emission;

import java.util.List;
import java.util.Locale;

/**
 * What one callback did to the business state, inside its transaction.
 *
 * @param emitted the downstream events written with it, to hand to the relay once committed
 */
public record Transition(Result result, String reason, List<Emission> emitted) {

    public enum Result {
        PAID,
        DUPLICATE,
        REFUND_REQUESTED,
        REFUND_SETTLED,
        /** An outbox event a destination accepted. */
        DELIVERED,
        /** Never retried (an amount mismatch): the row is dead-lettered and a person is alerted. */
        DEAD_LETTER,
        /** The providers were asked about a PENDING order and none has it paid yet: the next query is scheduled. */
        QUERIED,
        /** A query found the order paid: the answer is stored like a callback and settles the order through it. */
        FOUND_PAID,
        /** The order was settled, or cannot be asked about, without a query. */
        NOT_NEEDED,
        /** The provider accepted a refund we submitted. */
        REFUND_SUBMITTED;

        public String tag() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    public static Transition of(Result result, List<Emission> emitted) {
        return new Transition(result, null, emitted);
    }
}
