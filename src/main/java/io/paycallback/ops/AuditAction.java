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
    STATEMENT_RERUN;

    @JsonValue
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static AuditAction of(String label) {
        return valueOf(label.toUpperCase(Locale.ROOT));
    }
}
