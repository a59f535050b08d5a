package io.paycallback.ops;

import io.paycallback.lease.LeasedTable;
import io.paycallback.lease.LeasedTableRegistry;
import io.paycallback.lease.LeaseStatements;
import io.paycallback.lease.RowStatus;
import io.paycallback.lease.Worker;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * Dead letters of every leased table, named by the table's label: listing them, a second chance (requeue), and closing
 * one for good with a note (resolve) when no retry can help (an amount mismatch settled by hand, an event the
 * destination will never take). Every change is audited in its own transaction.
 */
@ApplicationScoped
public class DeadLetterActions {

    /** A row put back to pending (replay, requeue). */
    @Schema(name = "Queued")
    public record Queued(long id, RowStatus status) {
        static Queued pending(long id) {
            return new Queued(id, RowStatus.PENDING);
        }
    }

    /** A dead letter closed with a note: done, never tried again. */
    @Schema(name = "Resolved")
    public record Resolved(String table, long id, String note, long auditId) {
    }

    static final int NOTE_LENGTH = 400;

    private final LeasedTableRegistry tables;
    private final LeaseStatements leases;
    private final DeadLetters deadLetters;
    private final AuditLog audit;
    private final Worker worker;
    private final Pool pool;

    public DeadLetterActions(LeasedTableRegistry tables, LeaseStatements leases, DeadLetters deadLetters, AuditLog audit, Worker worker,
                             Pool pool) {
        this.tables = tables;
        this.leases = leases;
        this.deadLetters = deadLetters;
        this.audit = audit;
        this.worker = worker;
        this.pool = pool;
    }

    /** Every table's label, as operators name the tables. */
    public List<String> tables() {
        return tables.all().stream().map(LeasedTable::label).toList();
    }

    @OperatorAction.Performs(OperatorAction.DEAD_LETTER_LIST)
    public Uni<ActionResult<List<DeadLetters.DeadLetter>>> list(String table, int limit) {
        Optional<String> badLimit = Limits.check(limit);
        if (badLimit.isPresent()) {
            return Uni.createFrom().item(ActionResult.refused(badLimit.get()));
        }
        return ofTable(table, leased -> deadLetters.list(leased, limit)
                .map(dead -> ActionResult.done(dead, dead.size() + " dead")));
    }

    @OperatorAction.Performs(OperatorAction.REQUEUE)
    public Uni<ActionResult<Queued>> requeue(String table, long id, String actor) {
        return ofTable(table, leased -> {
            String target = leased.table() + "#" + id;
            return audit.change(actor, AuditAction.REQUEUE, target, tx -> leases.requeue(tx, leased, id))
                    .flatMap(entry -> {
                        if (entry.isEmpty()) {
                            return notDead(leased, id);
                        }
                        worker.handOff(leased, id);
                        return Uni.createFrom().item(ActionResult.done(Queued.pending(id), "requeued: pending again"));
                    });
        });
    }

    /**
     * Closes a dead letter with a note, audited: the row is done and never tried again, and the dead-letter count (and
     * its alert) drops. What was found and done by hand goes in the note.
     */
    @OperatorAction.Performs(OperatorAction.DEAD_LETTER_RESOLVE)
    public Uni<ActionResult<Resolved>> resolve(String table, long id, String note, String actor) {
        if (note == null || note.isBlank()) {
            return Uni.createFrom().item(ActionResult.refused("a resolution needs a note: what was found and done"));
        }
        String text = note.strip();
        if (text.length() > NOTE_LENGTH) {
            return Uni.createFrom().item(ActionResult.refused("the note is at most " + NOTE_LENGTH + " characters"));
        }
        return ofTable(table, leased -> {
            String target = leased.table() + "#" + id + ": " + text;
            return audit.change(actor, AuditAction.RESOLVE, target,
                            tx -> deadLetters.resolve(tx, leased, id, "resolved by " + actor + ": " + text))
                    .flatMap(entry -> {
                        if (entry.isEmpty()) {
                            return notDead(leased, id);
                        }
                        return Uni.createFrom().item(ActionResult.done(
                                new Resolved(leased.label(), id, text, entry.get()), "resolved"));
                    });
        });
    }

    private <T> Uni<ActionResult<T>> notDead(LeasedTable table, long id) {
        return deadLetters.status(pool, table, id).map(status -> status.isEmpty()
                ? ActionResult.notFound("no " + table.label() + " #" + id)
                : ActionResult.conflict(table.label() + " #" + id + " is " + status.get().label() + ", not a dead letter"));
    }

    private <T> Uni<ActionResult<T>> ofTable(String label, Function<LeasedTable, Uni<ActionResult<T>>> action) {
        return tables.byLabel(label == null ? "" : label).map(action).orElseGet(() -> Uni.createFrom().item(
                ActionResult.notFound("no table '" + label + "'; tables are " + tables.labels())));
    }
}
