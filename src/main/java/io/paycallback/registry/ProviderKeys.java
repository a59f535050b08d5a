package io.paycallback.registry;

import io.paycallback.trade.ChannelId;

/**
 * A merchant's or a platform's own keys at one provider, each provider's a type of its own (in its module), so a field
 * of one provider cannot be set on another's account. Their {@code toString}s never show a secret.
 */
public sealed interface ProviderKeys permits WxPayModule.Keys, AlipayModule.Keys, StripeModule.Keys {

    ChannelId provider();
}
