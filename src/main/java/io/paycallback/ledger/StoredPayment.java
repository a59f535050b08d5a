package io.paycallback.ledger;

import io.paycallback.channel.ChannelId;

import java.math.BigDecimal;
import java.util.Optional;

/** A reserved payment callback, as the order state machine sees it: provider-neutral, from our own table. */
public record StoredPayment(long id, String merchantId, String channel, String channelTradeNo, String outTradeNo,
                            BigDecimal amount, String currency) implements StoredCallback {

    /**
     * The provider the stored channel names, read here so that the state machine never parses a channel's path;
     * empty for a channel this build does not know (a row written by another version).
     */
    public Optional<ChannelId> provider() {
        return ChannelId.fromPath(channel);
    }
}
