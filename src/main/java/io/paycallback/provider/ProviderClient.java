package io.paycallback.provider;

import io.paycallback.channel.ChannelId;
import io.smallrye.mutiny.Uni;

/**
 * One provider's API for one merchant's keys. Failures are {@link ProviderException}s; nothing is logged here, so keys,
 * signatures and bodies never reach the log.
 */
public interface ProviderClient {

    ChannelId channel();

    /** Asks for the payment of our order number. */
    Uni<PaymentAnswer> queryPayment(String merchantId, String outTradeNo);

    /** Submits a refund, idempotent by its refund number: submitting it again never refunds twice. */
    Uni<RefundAnswer> submitRefund(RefundOrder refund);
}
