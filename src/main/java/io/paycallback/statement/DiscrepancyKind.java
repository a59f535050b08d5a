package io.paycallback.statement;

/** How a bill and the ledger disagree about one payment or refund. */
public enum DiscrepancyKind {
    /** The provider booked it; we hold its order (or refund) but not as PAID / SUCCEEDED. Repaired by asking. */
    MISSING_HERE,
    /** The provider booked it for an order (or refund of an order) that was never registered here. */
    NOT_REGISTERED,
    /** We hold it as PAID / SUCCEEDED; no bill of the day (or the cross-day window) lists it. */
    MISSING_AT_PROVIDER,
    /** Both hold it, for another amount or currency. Never repaired automatically. */
    AMOUNT_DIFFERS,
    /** Both hold it, in other states: REVOKED in the bill while PAID here, a refund FAILED there and SUCCEEDED here. */
    STATE_DIFFERS,
    /** A value a newer (or, after a rollback, an older) release stored and this build does not know. */
    UNKNOWN;

    /** The stored value; {@link #UNKNOWN} for one this build does not know. */
    public static DiscrepancyKind stored(String value) {
        for (DiscrepancyKind known : values()) {
            if (known != UNKNOWN && known.name().equals(value)) {
                return known;
            }
        }
        return UNKNOWN;
    }
}
