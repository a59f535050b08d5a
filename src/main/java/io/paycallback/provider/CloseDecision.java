package io.paycallback.provider;

import java.util.Set;

/** After a provider refused to close a trade because of its state: the provider's own query answer decides. */
final class CloseDecision {

    private CloseDecision() {
    }

    /**
     * @param refusal      what the close call answered, for the timeline
     * @param closedStates the provider's words for a trade the buyer can no longer pay
     */
    static CloseAnswer decide(String provider, PaymentAnswer answer, String refusal, Set<String> closedStates) {
        if (answer instanceof PaymentAnswer.Paid paid) {
            return new CloseAnswer.AlreadyPaid(paid, refusal + ", query: paid");
        }
        String state = ((PaymentAnswer.NotPaid) answer).state();
        if (closedStates.contains(state)) {
            return new CloseAnswer.ClosedAtProvider(refusal + ", query: " + state);
        }
        throw new ProviderException(provider, new ProviderFailure.NotClosed(state + " (close answered " + refusal + ")"));
    }
}
