package io.paycallback.ops;

import io.paycallback.channel.CallbackKind;
import io.paycallback.channel.ChannelId;
import io.paycallback.channel.Channels;
import io.paycallback.channel.CallbackRequest;
import io.paycallback.channel.Notice;
import io.paycallback.channel.Verdict;
import io.paycallback.ledger.CallbackLog;
import io.paycallback.ledger.CallbackRows;
import io.paycallback.ledger.LeasedTable;
import io.paycallback.retry.Worker;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.Map;

/**
 * Replays a stored callback from its raw body through the same parsing, the same unique key and the same state
 * machine as a live one. It cannot cause a second effect: the key must match the row's, and the transition of a
 * settled callback finds the order already moved (a duplicate) and its events already written.
 */
@ApplicationScoped
public class Replays {

    private final CallbackRows rows;
    private final Channels channels;
    private final Worker worker;

    public Replays(CallbackRows rows, Channels channels, Worker worker) {
        this.rows = rows;
        this.channels = channels;
        this.worker = worker;
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

    public Uni<Outcome> replay(CallbackLog log, long id) {
        return rows.find(log, id).flatMap(found -> {
            if (found.isEmpty()) {
                return Uni.createFrom().item(new Outcome.NotFound());
            }
            Map<String, Object> row = found.get();
            if ("pending".equals(row.get("status"))) {
                return Uni.createFrom().item(new Outcome.Conflict("the callback is pending already"));
            }
            return rows.rawBody(log, id).flatMap(body -> body.isEmpty() || body.get().length == 0
                    ? Uni.createFrom().item(new Outcome.Conflict("the raw body is no longer kept (housekeeping blanked it)"))
                    : reparse(log, id, (String) row.get("merchantId"), (String) row.get("channel"), body.get()));
        });
    }

    private Uni<Outcome> reparse(CallbackLog log, long id, String merchantId, String channel, byte[] body) {
        CallbackKind kind = log == CallbackLog.PAYMENT ? CallbackKind.PAYMENT : CallbackKind.REFUND;
        Verdict verdict = channels.get(ChannelId.fromPath(channel).orElseThrow())
                .parseStored(new CallbackRequest(merchantId, kind, Map.of(), body));
        if (!(verdict instanceof Verdict.Accepted accepted)) {
            return Uni.createFrom().item(new Outcome.Unparseable(verdict.toString()));
        }
        Uni<Boolean> reset;
        if (log == CallbackLog.PAYMENT && accepted.notice() instanceof Notice.Payment payment) {
            reset = rows.replay(id, payment);
        } else if (log == CallbackLog.REFUND && accepted.notice() instanceof Notice.Refund refund) {
            reset = rows.replay(id, refund);
        } else {
            return Uni.createFrom().item(new Outcome.Unparseable("the body no longer reads as a " + kind + " notice"));
        }
        return reset.map(done -> {
            if (!done) {
                return new Outcome.Conflict("the body's key differs from the row's, or the row changed meanwhile");
            }
            worker.handOff(LeasedTable.of(log), id);
            return new Outcome.Queued(id);
        });
    }
}
