package io.paycallback.order;

import io.paycallback.trade.ChannelId;

/**
 * Whether a refund this service decides on can be submitted to the provider: the deployment holds the merchant's API
 * keys there. A fact of the deployment, answered outside the state machine, which asks no provider itself: without it
 * a refund is recorded and announced for a person to make.
 */
public interface RefundSubmissions {

    boolean canSubmit(ChannelId provider, String merchantId);
}
