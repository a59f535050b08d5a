package io.paycallback.ledger;

/** The answer of the one INSERT that claims a callback. */
public sealed interface Reservation {

    /** This call stored the callback: it is ours to process. */
    record Reserved(CallbackLog log, long id) implements Reservation {
    }

    /** The unique key already holds it: a repeat push, to be acknowledged and otherwise ignored. */
    record AlreadyReserved(CallbackLog log) implements Reservation {
    }
}
