package io.paycallback.ops;

import com.fasterxml.jackson.annotation.JsonValue;

import java.util.Locale;

/** The operator actions that change state, and so are audited. */
public enum AuditAction {
    REPLAY,
    REQUEUE,
    BULK_REQUEUE,
    /** A quarantined body parsed again (after a parser fix) and stored as the callback it is. */
    QUARANTINE_REPLAY,
    /** A dead letter closed by an operator with a note: done, never tried again. */
    RESOLVE,
    /** A statement discrepancy closed by an operator, with a note. */
    STATEMENT_RESOLVE,
    /** A statement run enrolled or requeued by an operator: the bill of that day is fetched and compared again. */
    STATEMENT_RERUN,
    /** A destination stopped by an operator: its events wait, parked. */
    DESTINATION_DISABLE,
    /** A destination delivered to again: its circuit closed, its waiting events due. */
    DESTINATION_ENABLE,
    /** A destination's oldest waiting event sent now, at an operator's request. */
    DESTINATION_PROBE,
    /** A destination's events since a time sent again, and those of its types it had no row for written. */
    DESTINATION_REPLAY,
    /** A merchant, platform or provider account created, changed, enabled or disabled, or a key added or retired. */
    REGISTRY_CHANGE,
    /** Every sealed secret of the registry moved under the first key-encryption key. */
    REGISTRY_REWRAP,
    /** An API key of the order service made, scoped to merchants. */
    API_KEY_CREATE,
    /** An API key of the order service revoked: every instance refuses it within a poll. */
    API_KEY_REVOKE,
    /** A value a newer (or, after a rollback, an older) release stored and this build does not know. */
    UNKNOWN;

    @JsonValue
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The stored action; {@link #UNKNOWN} for one this build does not know. */
    public static AuditAction of(String label) {
        for (AuditAction action : values()) {
            if (action != UNKNOWN && action.label().equals(label)) {
                return action;
            }
        }
        return UNKNOWN;
    }
}
