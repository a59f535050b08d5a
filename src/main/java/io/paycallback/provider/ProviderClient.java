package io.paycallback.provider;

import io.paycallback.channel.Notice;
import io.paycallback.trade.ChannelId;
import io.smallrye.mutiny.Uni;

import java.util.Optional;

/**
 * One provider's API for one merchant's keys. Failures are {@link ProviderException}s; nothing is logged here, so keys,
 * signatures and bodies never reach the log.
 */
public interface ProviderClient {

    ChannelId channel();

    /** Asks for the payment of our order number (through its combine, where the provider needs that). */
    Uni<PaymentAnswer> queryPayment(OrderRef order);

    /** Submits a refund, idempotent by its refund number: submitting it again never refunds twice. */
    Uni<RefundAnswer> submitRefund(RefundOrder refund);

    /**
     * Asks for the state of a refund we submitted.
     *
     * @param channelRefundId the provider's id from the submission's answer, when it gave one
     * @return its final state, or empty while the provider is still working on it
     */
    Uni<Optional<Notice.Refund>> queryRefund(RefundOrder refund, String channelRefundId);

    /**
     * Closes the order's payment at the provider, so that its payment page stops taking money. A provider that refuses
     * because of the trade's state is asked about the payment, and its verified answer decides: paid, or closed. A
     * trade still open after a refusal is a {@link ProviderFailure.NotClosed}, tried again.
     */
    Uni<CloseAnswer> closePayment(OrderRef order);
}
