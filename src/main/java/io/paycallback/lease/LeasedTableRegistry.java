package io.paycallback.lease;

import io.quarkus.arc.All;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Every leased table, as their handlers registered them: a new leased table is one new {@link LeaseHandler}, found
 * here the way a scheduler finds a task by its name.
 */
@ApplicationScoped
public class LeasedTableRegistry {

    private final Map<LeasedTable, LeaseHandler> handlers = new HashMap<>();
    private final List<LeasedTable> all;

    public LeasedTableRegistry(@All List<LeaseHandler> handlers) {
        for (LeaseHandler handler : handlers) {
            LeaseHandler other = this.handlers.put(handler.table(), handler);
            if (other != null) {
                throw new IllegalStateException("two handlers for " + handler.table() + ": " + other + ", " + handler);
            }
        }
        this.all = this.handlers.keySet().stream().sorted(Comparator.comparing(LeasedTable::table)).toList();
    }

    /** Every table, in the order of their names. */
    public List<LeasedTable> all() {
        return all;
    }

    /** The table an operator names by its label. */
    public Optional<LeasedTable> byLabel(String label) {
        return all.stream().filter(table -> table.label().equals(label)).findFirst();
    }

    /** Every label, for a message that lists them. */
    public String labels() {
        return String.join(", ", all.stream().map(LeasedTable::label).toList());
    }

    public LeaseHandler handler(LeasedTable table) {
        LeaseHandler handler = handlers.get(table);
        if (handler == null) {
            throw new IllegalArgumentException("no handler for leased table " + table);
        }
        return handler;
    }
}
