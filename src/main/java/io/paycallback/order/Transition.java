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
        DEAD_LETTER;

        public String tag() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    public static Transition of(Result result, List<Emission> emitted) {
        return new Transition(result, null, emitted);
    }
}
