package io.paycallback.channel;

/**
 * A typed failure inside a channel's read pipeline; {@link #verdict()} turns it into the {@link ChannelVerdict} the
 * caller sees. Reasons are fixed phrases chosen by the channel: they never carry keys, signatures or body content.
 */
public abstract sealed class Rejection extends Exception {

    private Rejection(String reason) {
        super(reason, null, false, false);
    }

    public abstract ChannelVerdict verdict();

    public static BadSignature badSignature(String reason) {
        return new BadSignature(reason);
    }

    public static Malformed malformed(String reason) {
        return new Malformed(reason);
    }

    /** Not provably from the provider. */
    public static final class BadSignature extends Rejection {
        private BadSignature(String reason) {
            super(reason);
        }

        @Override
        public ChannelVerdict verdict() {
            return new ChannelVerdict.BadSignature(getMessage());
        }
    }

    /** Provably from the provider, but not understood. */
    public static final class Malformed extends Rejection {
        private Malformed(String reason) {
            super(reason);
        }

        @Override
        public ChannelVerdict verdict() {
            return new ChannelVerdict.Malformed(getMessage());
        }
    }
}
