package io.paycallback.lease;

/**
 * The right to work on one row until the lease runs out. Writes to the row carry the token, so a worker that
 * outlived its lease (and lost the row to another) changes nothing.
 *
 * @param failures how many tries of this row have failed before this one
 */
public record RowLease(LeasedTable table, long id, String token, int failures) implements LeasedRow {

    @Override
    public RowLease lease() {
        return this;
    }
}
