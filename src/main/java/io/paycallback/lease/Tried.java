package io.paycallback.lease;

import io.paycallback.lease.Lease;

/** What one try of one leased row came to. */
public sealed interface Tried {

    Lease lease();

    /** The row is finished; {@code result} is the metric's tag. */
    record Done(Lease lease, String result) implements Tried {
    }

    /** The handler buried the row at once, with no retry (an amount mismatch): a person is told why. */
    record Dead(Lease lease, String reason) implements Tried {
    }

    /** Somebody else holds the row now; this try changed nothing. */
    record Lost(Lease lease) implements Tried {
    }

    /** The try failed and changed nothing; the backoff decides what happens next. */
    record Failed(Lease lease, RuntimeException failure) implements Tried {
    }
}
