package io.paycallback.lease;

import java.util.Map;
import java.util.regex.Pattern;

/**
 * The independent shares of a table's rows (the outbox's: one per destination), named by a column, with how many more
 * rows each can take now. See {@link LeaseHandler#lanes()}.
 *
 * @param column the SQL name of the column whose value is a row's lane
 * @param room   each lane's value to the rows it can take now
 */
public record Lanes(String column, Map<String, Integer> room) {

    private static final Pattern SQL_NAME = Pattern.compile("[a-z][a-z0-9_]{0,63}");

    public Lanes {
        if (column == null || !SQL_NAME.matcher(column).matches()) {
            throw new IllegalArgumentException("not a column name: " + column);
        }
        room = Map.copyOf(room);
    }
}
