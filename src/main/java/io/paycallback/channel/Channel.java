package io.paycallback.channel;

import io.paycallback.trade.ChannelId;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * One payment provider: verifies a raw callback, parses it into a {@link Notice}, and speaks the provider's answer format.
 * Implementations are pure: no I/O, time from an injected clock, keys from configuration.
 */
public interface Channel {

    ChannelId id();

    /** Whether keys for this merchant are configured on this channel. */
    boolean serves(String merchantId);

    ChannelVerdict read(CallbackRequest request);

    /**
     * Parses a body that was verified when it arrived and has been stored since (an operator's replay). The signature
     * headers are not stored, so it is not verified again; the parsing is the very same as {@link #read}'s.
     */
    ChannelVerdict parseStored(CallbackRequest request);

    FormattedAnswer answer(AnswerKind outcome);

    /**
     * For a request {@link #read} refused: learns the keys it may have been refused for lacking (a key the provider
     * has begun to sign with), without blocking the caller.
     *
     * @return whether keys were learned that make reading it again worth it; false at once for a channel whose keys
     *         are only configured
     */
    default CompletionStage<Boolean> learnKeys(CallbackRequest request) {
        return CompletableFuture.completedFuture(false);
    }
}
