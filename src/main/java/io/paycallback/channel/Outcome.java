package io.paycallback.channel;

/** What happened to a callback, in the terms each provider's answer table is written in. */
public enum Outcome {
    /** Reserved now, already reserved, or acknowledged and ignored. */
    ACCEPTED,
    BAD_SIGNATURE,
    MALFORMED,
    /** The callback gate is full. */
    BUSY,
    /** The database did not confirm the reservation. */
    STORE_FAILED,
    TOO_LARGE,
    /** No keys are configured for this merchant on this channel. */
    UNKNOWN_MERCHANT
}
