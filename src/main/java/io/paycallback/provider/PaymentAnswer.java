package io.paycallback.provider;

import io.paycallback.channel.Notice;

/** What a provider says about an order's payment when asked. */
public sealed interface PaymentAnswer {

    /**
     * @param body the verified answer as received, stored like a callback's raw body
     */
    record Paid(Notice.Payment payment, byte[] body) implements PaymentAnswer {
    }

    /** Not paid (yet): unpaid, closed, unknown to the provider; {@code state} is the provider's word for it. */
    record NotPaid(String state) implements PaymentAnswer {
    }
}
