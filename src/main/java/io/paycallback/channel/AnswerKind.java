package io.paycallback.channel;

/**
 * The kind of answer a callback gets, whatever its provider: the answer table of docs/architecture.md, the same HTTP
 * status for every provider (each provider's {@link AnswerFormat} writes the body, and Stripe answers a bad signature
 * 400), so that "stored" is the only success and everything else makes the provider push again.
 */
public enum AnswerKind {
    /** Reserved now, already reserved, or acknowledged and ignored. */
    ACCEPTED(200, "ok"),
    BAD_SIGNATURE(401, "signature verification failed"),
    MALFORMED(400, "malformed notice"),
    /** The callback gate is full. */
    BUSY(503, "busy, retry later"),
    /** The database did not confirm the reservation. */
    STORE_FAILED(500, "storage unavailable, retry later"),
    TOO_LARGE(413, "body too large"),
    /** No keys are configured for this merchant on this channel. */
    UNKNOWN_MERCHANT(404, "unknown merchant");

    private final int status;
    private final String phrase;

    AnswerKind(int status, String phrase) {
        this.status = status;
        this.phrase = phrase;
    }

    public int status() {
        return status;
    }

    public String phrase() {
        return phrase;
    }
}
