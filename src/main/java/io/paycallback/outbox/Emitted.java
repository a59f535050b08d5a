package io.paycallback.outbox;

import io.paycallback.lease.AfterCommit;
import io.paycallback.lease.LeasedRow;
import org.jboss.logging.Logger;

import java.util.ArrayList;
import java.util.List;

/** The events a transaction wrote: once it has committed, the logged ones are logged and the others delivered. */
public record Emitted(List<Emission> emissions) implements AfterCommit {

    private static final Logger LOG = Logger.getLogger(Emitted.class);

    public static final Emitted NONE = new Emitted(List.of());

    @Override
    public List<LeasedRow> run() {
        List<LeasedRow> toDeliver = new ArrayList<>();
        for (Emission emission : emissions) {
            if (emission instanceof Emission.ToDeliver leased) {
                toDeliver.add(leased);
            } else if (emission instanceof Emission.ToLog logged) {
                log(logged.idempotencyKey(), logged.payload());
            }
        }
        return toDeliver;
    }

    public static void log(String idempotencyKey, String payload) {
        LOG.infof("Downstream event %s (no destination subscribes to its type): %s", idempotencyKey, payload);
    }
}
