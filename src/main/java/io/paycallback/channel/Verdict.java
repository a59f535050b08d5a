package io.paycallback.channel;

/** The result of reading a callback: a notice, or a typed reason it was refused. Never an exception. */
public sealed interface Verdict {

    record Accepted(Notice notice) implements Verdict {
    }

    /** Not provably from the provider (signature, key, timestamp, missing headers): store nothing. */
    record BadSignature(String reason) implements Verdict {
    }

    /** Signed by the provider but not understood: quarantine it and answer fail so the provider keeps it alive. */
    record Malformed(String reason) implements Verdict {
    }
}
