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
    FAILED
}
