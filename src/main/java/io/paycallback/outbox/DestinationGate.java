package io.paycallback.outbox;

/**
 * Whether a destination takes events now. One that does not (its circuit is open, or it is disabled) gets its new
 * events written parked instead of leased for delivery: they wait, at no cost, until it takes events again.
 */
@FunctionalInterface
public interface DestinationGate {

    /** Every destination takes events. */
    DestinationGate ALL = destination -> true;

    boolean accepts(String destination);
}
