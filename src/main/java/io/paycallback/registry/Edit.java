package io.paycallback.registry;

import io.paycallback.trade.ChannelId;

/**
 * What one operator's change comes to, worked out on the registry as it is when the change is made: an owner's new
 * state to write, or why nothing is written.
 */
public sealed interface Edit {

    /**
     * A merchant or platform to write whole.
     *
     * @param before   the owner before, null when it is new
     * @param provider the account the change is about, null for the owner itself
     */
    record Merchant(MerchantEntry before, MerchantEntry after, String action, ChannelId provider, String summary)
            implements Edit {
    }

    record Platform(PlatformEntry before, PlatformEntry after, String action, ChannelId provider, String summary)
            implements Edit {
    }

    record NotFound(String reason) implements Edit {
    }

    /** The request does not make a valid registry; the reason names the field. */
    record Refused(String reason) implements Edit {
    }

    /** The change would do nothing: it is not recorded. */
    record Unchanged(String summary) implements Edit {
    }
}
