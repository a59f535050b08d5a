package io.paycallback.ops;

import io.paycallback.channel.CallbackKind;
import io.paycallback.channel.Channels;
import io.paycallback.channel.Notice;
import io.paycallback.channel.Verdict;
import io.paycallback.inbox.CallbackLog;
import io.paycallback.inbox.CallbackRow;
import io.paycallback.inbox.CallbackRows;
import io.paycallback.lease.RowStatus;
import io.paycallback.lease.Worker;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.Optional;

/**
 * Replays a stored callback from its raw body through the same parsing, the same unique key and the same state
 * machine as a live one. It cannot cause a second effect: the key must match the row's, and the transition of a
 * settled callback finds the order already moved (a duplicate) and its events already written. A replay that resets the
 * row is audited in the same transaction.
 */
@ApplicationScoped
public class Replays {

    private final CallbackRows rows;
    private final Channels channels;
    private final Worker worker;
    private final AuditLog audit;
    private final Pool pool;

    public Replays(CallbackRows rows, Channels channels, Worker worker, AuditLog audit, Pool pool) {
        this.rows = rows;
        this.channels = channels;
        this.worker = worker;
        this.audit = audit;
        this.pool = pool;
    }

    public sealed interface Outcome {
        record Queued(long id) implements Outcome {
        }

        record NotFound() implements Outcome {
        }

        /** The request cannot be carried out in the row's present state. */
        record Conflict(String reason) implements Outcome {
        }

        /** The stored body no longer yields this callback (a parser change, or a body that never was one). */
        record Unparseable(String reason) implements Outcome {
        }
    }

    public Uni<Outcome> replay(CallbackLog log, long id, String actor) {
        return rows.find(log, id).flatMap(found -> {
            if (found.isEmpty()) {
                return Uni.createFrom().item(new Outcome.NotFound());
            }
            CallbackRow row = found.get();
            if (row.status() == RowStatus.PENDING) {
                return Uni.createFrom().item(new Outcome.Conflict("the callback is pending already"));
            }
            return rows.rawBody(log, id).flatMap(body -> body.isEmpty() || body.get().length == 0
                    ? Uni.createFrom().item(new Outcome.Conflict("the raw body is no longer kept (housekeeping blanked it)"))
                    : reparse(log, row, body.get(), actor));
        });
    }

    private Uni<Outcome> reparse(CallbackLog log, CallbackRow row, byte[] body, String actor) {
        CallbackKind kind = log.kind();
        Verdict verdict = channels.parseStored(row.channel(), row.merchantId(), kind, body);
        if (!(verdict instanceof Verdict.Accepted accepted)) {
            return Uni.createFrom().item(new Outcome.Unparseable(verdict.toString()));
        }
        long id = row.id();
        boolean matchesLog = log == CallbackLog.PAYMENT ? accepted.notice() instanceof Notice.Payment
                : accepted.notice() instanceof Notice.Refund;
        if (!matchesLog) {
            return Uni.createFrom().item(new Outcome.Unparseable("the body no longer reads as a " + kind + " notice"));
        }
        String target = log.table() + "#" + id;
        return pool.withTransaction(tx -> {
            Uni<Boolean> reset = accepted.notice() instanceof Notice.Payment payment
                    ? rows.replay(tx, id, payment) : rows.replay(tx, id, (Notice.Refund) accepted.notice());
            return reset.flatMap(done -> done
                    ? audit.record(tx, actor, AuditAction.REPLAY, target, 1).map(entry -> Optional.of(entry))
                    : Uni.createFrom().item(Optional.<Long>empty()));
        }).map(entry -> {
            if (entry.isEmpty()) {
                return new Outcome.Conflict("the body's key differs from the row's, or the row changed meanwhile");
            }
            audit.logged(entry.get(), actor, AuditAction.REPLAY, target, 1);
            worker.handOff(log.leased(), id);
            return new Outcome.Queued(id);
        });
    }
}
