package io.paycallback.ops;

import io.paycallback.channel.CallbackKind;
import io.paycallback.channel.Channels;
import io.paycallback.channel.Notice;
import io.paycallback.channel.ChannelVerdict;
import io.paycallback.inbox.CallbackTable;
import io.paycallback.inbox.CallbackRow;
import io.paycallback.inbox.CallbackRows;
import io.paycallback.lease.RowStatus;
import io.paycallback.lease.Worker;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlClient;
import jakarta.enterprise.context.ApplicationScoped;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * Stored callbacks for an operator, named by their kind ({@code payment} or {@code refund}): lists without raw bodies,
 * one row with its body on demand, and a replay from that body. A replay runs the same parsing, the same unique key
 * and the same state machine as a live callback, so it cannot cause a second effect: the key must match the row's,
 * and the transition of a settled callback finds the order already moved and its events already written. A replay
 * that resets the row is audited in the same transaction.
 */
@ApplicationScoped
public class CallbackActions {

    private final CallbackRows rows;
    private final Channels channels;
    private final Worker worker;
    private final AuditLog audit;

    public CallbackActions(CallbackRows rows, Channels channels, Worker worker, AuditLog audit) {
        this.rows = rows;
        this.channels = channels;
        this.worker = worker;
        this.audit = audit;
    }

    /** The newest due first, without raw bodies. */
    @OperatorAction.Performs(OperatorAction.CALLBACK_LIST)
    public Uni<ActionResult<List<CallbackRow>>> list(String kind, String status, int limit) {
        Optional<CallbackTable> log = CallbackTable.fromApiName(kind == null ? "" : kind);
        Optional<RowStatus> rowStatus = RowStatus.named(status == null ? "" : status);
        if (log.isEmpty() || rowStatus.isEmpty() || Limits.check(limit).isPresent()) {
            return Uni.createFrom().item(ActionResult.refused(
                    "kind is payment|refund, status is pending|done|dead|compacted, limit is 1.." + Limits.MAX));
        }
        return rows.list(log.get(), rowStatus.get(), limit)
                .map(list -> ActionResult.done(list, list.size() + " callbacks"));
    }

    /**
     * One callback, with its raw body (as UTF-8 text) when asked for: from the hot table, else from the archive, whose
     * rows housekeeping moved only after blanking their bodies.
     */
    @OperatorAction.Performs(OperatorAction.CALLBACK_INSPECT)
    public Uni<ActionResult<CallbackRow>> inspect(String kind, long id, boolean withBody) {
        return ofKind(kind, log -> rows.find(log, id).flatMap(hot -> {
            if (hot.isEmpty()) {
                return rows.findArchived(log, id).map(archived -> archived
                        .map(row -> ActionResult.done(withBody ? row.withBody("") : row, "archived callback " + id))
                        .orElseGet(() -> ActionResult.notFound("no " + kind + " callback " + id)));
            }
            if (!withBody) {
                return Uni.createFrom().item(ActionResult.done(hot.get(), "callback " + id));
            }
            return rows.rawBody(log, id).map(body -> ActionResult.done(hot.get().withBody(
                    body.map(bytes -> new String(bytes, StandardCharsets.UTF_8)).orElse("")), "callback " + id));
        }));
    }

    @OperatorAction.Performs(OperatorAction.CALLBACK_REPLAY)
    public Uni<ActionResult<DeadLetterActions.Queued>> replay(String kind, long id, String actor) {
        return ofKind(kind, log -> rows.find(log, id).flatMap(found -> {
            if (found.isEmpty()) {
                return Uni.createFrom().item(ActionResult.notFound("no " + kind + " callback " + id));
            }
            CallbackRow row = found.get();
            if (row.status() == RowStatus.PENDING) {
                return Uni.createFrom().item(ActionResult.conflict("the callback is pending already"));
            }
            return rows.rawBody(log, id).flatMap(body -> body.isEmpty() || body.get().length == 0
                    ? Uni.createFrom().item(ActionResult.conflict(
                            "the raw body is no longer kept (housekeeping blanked it)"))
                    : reparse(log, row, body.get(), actor));
        }));
    }

    private Uni<ActionResult<DeadLetterActions.Queued>> reparse(CallbackTable log, CallbackRow row, byte[] body,
                                                                 String actor) {
        CallbackKind kind = log.kind();
        ChannelVerdict verdict = channels.parseStored(row.channel(), row.merchantId(), kind, body);
        if (!(verdict instanceof ChannelVerdict.Accepted accepted)) {
            return Uni.createFrom().item(new ActionResult.Unreadable<>(verdict.toString()));
        }
        long id = row.id();
        Optional<Function<SqlClient, Uni<Boolean>>> reset = accepted.notice().accept(new Reset(log, row));
        if (reset.isEmpty()) {
            return Uni.createFrom().item(new ActionResult.Unreadable<>("the body no longer reads as a " + kind + " notice"));
        }
        String target = log.table() + "#" + id;
        return audit.change(actor, AuditAction.REPLAY, target, reset.get()).map(entry -> {
            if (entry.isEmpty()) {
                return ActionResult.conflict("the body's key differs from the row's, or the row changed meanwhile");
            }
            worker.handOff(log.leased(), id);
            return ActionResult.done(DeadLetterActions.Queued.pending(id), "replayed: pending again");
        });
    }

    /**
     * How a replayed body resets its row, when it still reads as what the row holds: a payment in the payment log, a
     * refund in the refund log; a combine notice's row is the sub-order under the row's key (its trade number).
     */
    private final class Reset implements Notice.Visitor<Optional<Function<SqlClient, Uni<Boolean>>>, RuntimeException> {

        private final CallbackTable log;
        private final CallbackRow row;

        Reset(CallbackTable log, CallbackRow row) {
            this.log = log;
            this.row = row;
        }

        @Override
        public Optional<Function<SqlClient, Uni<Boolean>>> payment(Notice.Payment payment) {
            return log == CallbackTable.PAYMENT ? Optional.of(tx -> rows.replay(tx, row.id(), payment)) : Optional.empty();
        }

        @Override
        public Optional<Function<SqlClient, Uni<Boolean>>> refund(Notice.Refund refund) {
            return log == CallbackTable.REFUND ? Optional.of(tx -> rows.replay(tx, row.id(), refund)) : Optional.empty();
        }

        @Override
        public Optional<Function<SqlClient, Uni<Boolean>>> refundPending(Notice.RefundPending pending) {
            return Optional.empty();
        }

        @Override
        public Optional<Function<SqlClient, Uni<Boolean>>> combined(Notice.Combined combined) {
            if (!(row instanceof CallbackRow.Payment stored)) {
                return Optional.empty();
            }
            return combined.payments().stream().filter(sub -> sub.channelTradeNo().value().equals(stored.channelTradeNo()))
                    .findFirst().flatMap(this::payment);
        }

        @Override
        public Optional<Function<SqlClient, Uni<Boolean>>> ignored(Notice.Ignored ignored) {
            return Optional.empty();
        }
    }

    /** The callback log a kind names, else "not found" for every operation on it. */
    private static <T> Uni<ActionResult<T>> ofKind(String kind, Function<CallbackTable, Uni<ActionResult<T>>> action) {
        return CallbackTable.fromApiName(kind == null ? "" : kind).map(action)
                .orElseGet(() -> Uni.createFrom().item(ActionResult.notFound("kind is payment or refund")));
    }
}
