package io.paycallback.provider;

/** What a provider says when asked to close an order's payment, so that the buyer can no longer pay it. */
public sealed interface CloseAnswer {

    /** Whatever was tried during this close, for the order's timeline: the provider's words, never a body or key. */
    String said();

    /**
     * The buyer can no longer pay at this provider: closed now, closed before, or never created there.
     *
     * @param said e.g. {@code 204}, {@code ACQ.TRADE_NOT_EXIST}, {@code canceled}
     */
    record ClosedAtProvider(String said) implements CloseAnswer {
    }

    /**
     * The provider refused because the buyer has paid: its verified query answer, to be stored like a callback.
     */
    record AlreadyPaid(PaymentAnswer.Paid paid, String said) implements CloseAnswer {
    }
}
