package io.paycallback.inbox;

import io.paycallback.trade.ChannelId;
import io.paycallback.trade.ChannelTradeNo;
import io.paycallback.trade.Money;
import io.paycallback.trade.OutTradeNo;
import io.paycallback.tracing.Traceparent;

import java.util.Optional;

/**
 * A reserved payment callback, as the order state machine sees it: provider-neutral, from our own table.
 *
 * @param paid        the amount the notice reports paid, in its currency
 * @param traceparent the span that stored it
 */
public record StoredPayment(long id, String merchantId, String channel, ChannelTradeNo channelTradeNo,
                            OutTradeNo outTradeNo, Money paid, Optional<Traceparent> traceparent)
        implements StoredCallback {

    /**
     * The provider the stored channel names, read here so that the state machine never parses a channel's path;
     * empty for a channel this build does not know (a row written by another version).
     */
    public Optional<ChannelId> provider() {
        return ChannelId.fromPath(channel);
    }
}
