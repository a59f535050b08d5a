package io.paycallback.channel;

import io.paycallback.trade.ChannelId;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;

/**
 * The channels served now, one per provider, each holding the keys of every merchant and platform the registry serves.
 * The registry builds them from its snapshot and swaps them in together, so a callback reads one registry version or
 * the next, never part of a change.
 */
@ApplicationScoped
public class Channels {

    private volatile Map<ChannelId, Channel> channels = Map.of();

    /** Serves these channels from now on, all of them at once. */
    public void replace(Map<ChannelId, Channel> served) {
        this.channels = new EnumMap<>(served);
    }

    /** The channel named by a callback path segment ({@code wxpay}, {@code alipay}, {@code stripe}). */
    public Optional<Channel> find(String path) {
        Map<ChannelId, Channel> served = channels;
        return ChannelId.fromPath(path).map(served::get);
    }

    public Channel get(ChannelId id) {
        return channels.get(id);
    }

    /**
     * Parses a stored body again, for an operator's replay. Its signature headers are not kept, so it is not verified
     * again: it was when it arrived.
     */
    public ChannelVerdict parseStored(String channelPath, String merchantId, CallbackKind kind, byte[] body) {
        return find(channelPath)
                .map(channel -> channel.parseStored(new CallbackRequest(merchantId, kind, Map.of(), body)))
                .orElseGet(() -> new ChannelVerdict.Malformed("the row's channel '" + channelPath + "' is unknown"));
    }
}
