package io.paycallback.lease;

import java.time.Duration;

/** What one try of one leased row came to. */
public sealed interface Tried {

    RowLease lease();

    /** The row is finished; {@code result} is the metric's tag. */
    record Done(RowLease lease, String result) implements Tried {
    }

    /** The handler buried the row at once, with no retry (an amount mismatch): a person is told why. */
    record Dead(RowLease lease, String reason) implements Tried {
    }

    /** Somebody else holds the row now; this try changed nothing. */
    record Lost(RowLease lease) implements Tried {
    }

    /**
     * The try failed and changed nothing; the backoff decides what happens next, and the next try is never sooner than
     * {@code notBefore} from now (what the other side asked for, such as an HTTP Retry-After).
     */
    record Failed(RowLease lease, RuntimeException failure, Duration notBefore) implements Tried {

        public Failed(RowLease lease, RuntimeException failure) {
            this(lease, failure, Duration.ZERO);
        }
    }

    /**
     * The handler gave the row back itself, without counting a try: the row was not tried, or what stopped it is no
     * fault of the row (its destination takes nothing now). {@code result} is the metric's tag.
     */
    record Deferred(RowLease lease, String result) implements Tried {
    }
}
