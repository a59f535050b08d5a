package io.paycallback.channel;

/**
 * One payment provider: verifies a raw callback, parses it into a {@link Notice}, and speaks the provider's answer format.
 * Implementations are pure: no I/O, time from an injected clock, keys from configuration.
 */
public interface Channel {

    ChannelId id();

    /** Whether keys for this merchant are configured on this channel. */
    boolean serves(String merchantId);

    Verdict read(CallbackRequest request);

    Answer answer(Outcome outcome);
}
