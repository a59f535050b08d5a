package io.paycallback.delivery;

import java.util.Locale;

/**
 * The changes an operator makes to a destination, as the delivery package names them for the audit: each audited by
 * whoever calls them (see {@link ActionAudit}).
 */
public enum DestinationAuditAction {
    /** Stop delivering to it: its events wait, parked, until it is enabled. */
    DISABLE,
    /** Deliver to it again: its circuit closes and its waiting events are due at once. */
    ENABLE,
    /** Send its oldest waiting event now: delivered, its circuit closes. */
    PROBE,
    /** Send again the events it has been sent since a time, and those of its types written before it subscribed. */
    REPLAY;

    public String label() {
        return "destination_" + name().toLowerCase(Locale.ROOT);
    }
}
