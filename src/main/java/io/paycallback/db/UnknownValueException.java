package io.paycallback.db;

/**
 * A stored value this build does not know: a state, an enum value or a column value written by a newer release running
 * beside it (a rolling upgrade) or before it (a rollback). The row is not this build's to decide: its try is given
 * back without counting, for an instance that knows the value, and never becomes a dead letter here.
 */
public class UnknownValueException extends RuntimeException {

    private final String column;
    private final String value;

    public UnknownValueException(String column, String value) {
        super(column + " holds '" + value + "', which this build does not know: left for a release that does", null,
                false, false);
        this.column = column;
        this.value = value;
    }

    /** The table and column, e.g. {@code orders.status}. */
    public String column() {
        return column;
    }

    public String value() {
        return value;
    }
}
