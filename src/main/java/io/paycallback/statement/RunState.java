package io.paycallback.statement;

/** What a statement run came to, for an operator; the lease columns say whether it is still worked on. */
public enum RunState {
    /** Enrolled, not compared yet. */
    PENDING,
    /** The provider is still making the bill: asked again every {@code statements.creating-retry}. */
    CREATING,
    /** The last try failed (download, integrity, database): tried again on the backoff. */
    RETRYING,
    /** Compared: nothing open. */
    MATCHED,
    /** Compared: open discrepancies for a person. */
    DIFFERENCES,
    /** Out of tries: a dead letter, alerted. */
    FAILED,
    /** A value a newer (or, after a rollback, an older) release stored and this build does not know. */
    UNKNOWN;

    /** The stored value; {@link #UNKNOWN} for one this build does not know. */
    public static RunState stored(String value) {
        for (RunState known : values()) {
            if (known != UNKNOWN && known.name().equals(value)) {
                return known;
            }
        }
        return UNKNOWN;
    }
}
