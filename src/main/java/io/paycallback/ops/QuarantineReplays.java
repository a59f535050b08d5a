package io.paycallback.ops;

import io.paycallback.channel.Channels;
import io.paycallback.channel.Notice;
import io.paycallback.channel.Verdict;
import io.paycallback.inbox.CallbackInbox;
import io.paycallback.inbox.Quarantine;
import io.paycallback.inbox.Reservation;
import io.paycallback.lease.Pickup;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.Optional;

/**
 * An operator's second chance for a quarantined callback, once the parser is fixed: the body (verified when it
 * arrived) is parsed again and, if it now reads, stored exactly as its push would have been, under the same unique
 * key, so a push stored meanwhile makes it a no-op. Only then does it leave the quarantine, audited. Providers stop
 * pushing after a day or two; without this the fix would come too late for what they gave up on.
 */
@ApplicationScoped
public class QuarantineReplays {

    /** What became of a quarantined callback. */
    public sealed interface Outcome {
        /** Stored (or found stored already) and released from quarantine. */
        record Stored(String detail) implements Outcome {
        }

        /** It reads now, and what it says needs nothing (an unpaid state): released from quarantine. */
        record Ignored(String reason) implements Outcome {
        }

        /** It still does not parse; it stays. */
        record Unparseable(String reason) implements Outcome {
        }

        record NotFound() implements Outcome {
        }
    }

    private final Quarantine quarantine;
    private final Channels channels;
    private final CallbackInbox inbox;
    private final AuditLog audit;
    private final Pool pool;

    public QuarantineReplays(Quarantine quarantine, Channels channels, CallbackInbox inbox, AuditLog audit, Pool pool) {
        this.quarantine = quarantine;
        this.channels = channels;
        this.inbox = inbox;
        this.audit = audit;
        this.pool = pool;
    }

    public Uni<Outcome> replay(long id, String actor) {
        return quarantine.find(id).flatMap(found -> found.isEmpty()
                ? Uni.createFrom().item(new Outcome.NotFound())
                : reparse(found.get(), actor));
    }

    private Uni<Outcome> reparse(Quarantine.Held held, String actor) {
        Verdict verdict = channels.parseStored(held.channel(), held.merchantId(), held.kind(), held.body());
        if (!(verdict instanceof Verdict.Accepted accepted)) {
            return Uni.createFrom().item(new Outcome.Unparseable(verdict.toString()));
        }
        Notice notice = accepted.notice();
        Uni<Outcome> stored;
        if (notice instanceof Notice.Payment payment) {
            stored = inbox.reserve(payment, held.body(), Pickup.SCANNER).map(QuarantineReplays::stored);
        } else if (notice instanceof Notice.Refund refund) {
            stored = inbox.reserve(refund, held.body(), Pickup.SCANNER).map(QuarantineReplays::stored);
        } else if (notice instanceof Notice.RefundPending) {
            stored = Uni.createFrom().item(new Outcome.Ignored("refund still pending: its final notice settles it"));
        } else {
            stored = Uni.createFrom().item(new Outcome.Ignored(((Notice.Ignored) notice).reason()));
        }
        String target = "quarantine#" + held.id();
        return stored.flatMap(outcome -> pool.withTransaction(tx -> quarantine.release(tx, held.id())
                        .flatMap(released -> released
                                ? audit.record(tx, actor, AuditAction.QUARANTINE_REPLAY, target, 1).map(Optional::of)
                                : Uni.createFrom().item(Optional.<Long>empty())))
                .map(entry -> {
                    entry.ifPresent(logged -> audit.logged(logged, actor, AuditAction.QUARANTINE_REPLAY, target, 1));
                    return entry.isPresent() ? outcome : new Outcome.NotFound();
                }));
    }

    private static Outcome stored(Reservation reservation) {
        return new Outcome.Stored(reservation instanceof Reservation.Reserved
                ? "stored; the scanner processes it" : "stored already by a later push");
    }
}
