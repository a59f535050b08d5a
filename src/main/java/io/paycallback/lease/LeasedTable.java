package io.paycallback.lease;

import java.util.regex.Pattern;

/**
 * A table whose rows are worked off with a lease and a backoff: it has the columns status, retry_count, next_retry_at,
 * lease_token, last_error and the index (status, next_retry_at), and {@link LeaseStatements} serves it like every
 * other. The package that owns the table declares it (this record) beside the SQL that writes its rows and registers a
 * {@link LeaseHandler} for it: the lease engine names no table itself.
 *
 * @param table    the SQL name, spliced into the engine's statements
 * @param label    its name for operators, in the admin API's paths and bodies and on the console
 * @param lateness which of its pending rows an operator must hear about
 */
public record LeasedTable(String table, String label, Lateness lateness) {

    private static final Pattern SQL_NAME = Pattern.compile("[a-z][a-z0-9_]{0,63}");
    private static final Pattern LABEL = Pattern.compile("[a-z][a-z-]{0,31}");

    public LeasedTable {
        if (table == null || !SQL_NAME.matcher(table).matches()) {
            throw new IllegalArgumentException("not a table name: " + table);
        }
        if (label == null || !LABEL.matcher(label).matches()) {
            throw new IllegalArgumentException("not a label: " + label);
        }
        if (lateness == null) {
            throw new IllegalArgumentException("lateness of " + table + " is required");
        }
    }

    /** When a pending row has waited too long. */
    public enum Lateness {
        /** Rows are worked off as they arrive: one still pending long after it arrived means processing is stuck. */
        SINCE_ARRIVAL,
        /**
         * Rows wait by design (an order's queries run for days, a statement run waits for its bill, an event waits for
         * its destination): only a try overdue by long after it was due means processing is stuck.
         */
        SINCE_DUE
    }

    @Override
    public String toString() {
        return table;
    }
}
