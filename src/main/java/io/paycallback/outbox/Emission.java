package io.paycallback.outbox;

import io.paycallback.ledger.Lease;

/**
 * An event row as its writer left it. A row for a real destination is written already leased by the writer, so the
 * relay can deliver it right after the commit without another write; should that never happen, the lease lapses and
 * the scanner delivers it. A row for the built-in log destination is written delivered, to be logged after the commit.
 *
 * @param lease null when the row went to the log destination
 */
public record Emission(Lease lease, String idempotencyKey, String payload) {

    public boolean toLog() {
        return lease == null;
    }
}
