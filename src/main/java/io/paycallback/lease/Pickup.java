package io.paycallback.lease;

/** Who processes a freshly reserved row first. */
public enum Pickup {
    /** The caller, at once: the row is written already leased to it, which saves the write that would claim it. */
    CALLER,
    /** The scanner: the row is written due now. */
    SCANNER
}
