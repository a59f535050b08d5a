package io.paycallback.inbox;

import io.paycallback.lease.RowLease;
import java.util.Optional;

/** The answer of the one INSERT that claims a callback. */
public sealed interface Reservation {

    /**
     * This call stored the callback: it is ours to process.
     *
     * @param lease present when the row was written already leased to the caller
     */
    record Reserved(Optional<RowLease> lease) implements Reservation {
    }

    /** The unique key already holds it: a repeat push, to be acknowledged and otherwise ignored. */
    record AlreadyReserved() implements Reservation {
    }
}
