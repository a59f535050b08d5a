package io.paycallback.statement;

/** Where a discrepancy stands. */
public enum DiscrepancyState {
    /** Missing at the provider, inside the cross-day window: a neighbouring day's bill may still list it. */
    WAITING,
    /** For a person: alerted after an hour. */
    OPEN,
    /** The provider's verified answer was stored through the ledger (origin {@code statement}). */
    REPAIRED,
    /** Closed by an operator with a note, or by a later bill listing what was missing. */
    RESOLVED,
    /** A value a newer (or, after a rollback, an older) release stored and this build does not know. */
    UNKNOWN;

    /** The stored value; {@link #UNKNOWN} for one this build does not know. */
    public static DiscrepancyState stored(String value) {
        for (DiscrepancyState known : values()) {
            if (known != UNKNOWN && known.name().equals(value)) {
                return known;
            }
        }
        return UNKNOWN;
    }
}
