package io.paycallback.channel;

/** The channel's verdict on a callback's bytes: a notice, or a typed reason it was refused. Never an exception. */
public sealed interface ChannelVerdict {

    record Accepted(Notice notice) implements ChannelVerdict {
    }

    /** Not provably from the provider (signature, key, timestamp, missing headers): store nothing. */
    record BadSignature(String reason) implements ChannelVerdict {
    }

    /** Signed by the provider but not understood: quarantine it and answer fail so the provider keeps it alive. */
    record Malformed(String reason) implements ChannelVerdict {
    }
}
