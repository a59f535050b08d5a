package io.paycallback.ops;

import io.paycallback.channel.Channels;
import io.paycallback.channel.Notice;
import io.paycallback.channel.ChannelVerdict;
import io.paycallback.inbox.CallbackInbox;
import io.paycallback.inbox.Quarantine;
import io.paycallback.inbox.QuarantinedCallback;
import io.paycallback.inbox.Reservation;
import io.paycallback.lease.Pickup;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.List;
import java.util.Optional;

/**
 * Quarantined callbacks for an operator: the list, and a second chance once the parser is fixed: the body (verified
 * when it arrived) is parsed again and, if it now reads, stored exactly as its push would have been, under the same
 * unique key, so a push stored meanwhile makes it a no-op. Only then does it leave the quarantine, audited. Providers
 * stop pushing after a day or two; without this the fix would come too late for what they gave up on.
 */
@ApplicationScoped
public class QuarantineActions {

    /** @param result {@code stored} or {@code ignored} */
    public record QuarantineReplayed(long id, String result, String detail) {
    }

    private final Quarantine quarantine;
    private final Channels channels;
    private final CallbackInbox inbox;
    private final AuditLog audit;

    public QuarantineActions(Quarantine quarantine, Channels channels, CallbackInbox inbox, AuditLog audit) {
        this.quarantine = quarantine;
        this.channels = channels;
        this.inbox = inbox;
        this.audit = audit;
    }

    /** Newest first, without bodies. */
    @OperatorAction.Performs(OperatorAction.QUARANTINE_LIST)
    public Uni<ActionResult<List<QuarantinedCallback>>> list(int limit) {
        Optional<String> badLimit = Limits.check(limit);
        if (badLimit.isPresent()) {
            return Uni.createFrom().item(ActionResult.refused(badLimit.get()));
        }
        return quarantine.list(limit).map(rows -> ActionResult.done(rows, rows.size() + " quarantined"));
    }

    @OperatorAction.Performs(OperatorAction.QUARANTINE_REPLAY)
    public Uni<ActionResult<QuarantineReplayed>> replay(long id, String actor) {
        return quarantine.find(id).flatMap(found -> found.isEmpty()
                ? Uni.createFrom().item(ActionResult.notFound("no quarantined callback " + id))
                : reparse(found.get(), actor));
    }

    private Uni<ActionResult<QuarantineReplayed>> reparse(Quarantine.Held held, String actor) {
        ChannelVerdict verdict = channels.parseStored(held.channel(), held.merchantId(), held.kind(), held.body());
        if (!(verdict instanceof ChannelVerdict.Accepted accepted)) {
            return Uni.createFrom().item(new ActionResult.Unreadable<>(verdict.toString()));
        }
        Notice notice = accepted.notice();
        long id = held.id();
        Optional<String> ignored = notice.ignoredBecause();
        // No trace caused the replay: the stored callback's transition starts one of its own.
        Uni<QuarantineReplayed> stored = ignored.isPresent()
                ? Uni.createFrom().item(new QuarantineReplayed(id, "ignored", ignored.get()))
                : inbox.store(notice, held.body(), Pickup.SCANNER, Optional.empty())
                        .map(reservations -> stored(id, reservations));
        String target = "quarantine#" + id;
        return stored.flatMap(replayed -> audit.change(actor, AuditAction.QUARANTINE_REPLAY, target,
                        tx -> quarantine.release(tx, id))
                .map(entry -> {
                    if (entry.isEmpty()) {
                        return ActionResult.<QuarantineReplayed>notFound("no quarantined callback " + id);
                    }
                    return ActionResult.done(replayed, "stored".equals(replayed.result()) ? replayed.detail()
                            : "released: " + replayed.detail());
                }));
    }

    /** A combine notice stores one row per paid sub-order, any of which a later push may have stored already. */
    private static QuarantineReplayed stored(long id, List<Reservation> reservations) {
        long reserved = reservations.stream().filter(Reservation.Reserved.class::isInstance).count();
        if (reservations.size() > 1) {
            return new QuarantineReplayed(id, "stored", reservations.size() + " sub-orders stored, " + reserved
                    + " now; the scanner processes them");
        }
        return new QuarantineReplayed(id, "stored", reserved == 1
                ? "stored; the scanner processes it" : "stored already by a later push");
    }
}
