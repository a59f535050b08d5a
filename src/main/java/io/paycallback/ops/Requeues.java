package io.paycallback.ops;

import io.paycallback.config.PayCallbackConfig;
import io.paycallback.lease.LeasedTable;
import io.paycallback.lease.Leases;
import io.paycallback.lease.Worker;
import io.paycallback.ops.DeadLetters;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.ArrayList;
import java.util.List;

/**
 * An operator's second chance for dead letters, one at a time or by filter. Every requeue is audited: a single one in
 * its own transaction, a bulk one by an entry written first whose row count grows in each batch's transaction.
 */
@ApplicationScoped
public class Requeues {

    /** The outcome of a bulk requeue: its audit entry, the rows requeued and the transactions it took. */
    public record Applied(long auditId, long requeued, int batches) {
    }

    private final Leases leases;
    private final DeadLetters deadLetters;
    private final AuditLog audit;
    private final Worker worker;
    private final Pool pool;
    private final int batchSize;

    public Requeues(Leases leases, DeadLetters deadLetters, AuditLog audit, Worker worker, Pool pool,
                    PayCallbackConfig config) {
        this.leases = leases;
        this.deadLetters = deadLetters;
        this.audit = audit;
        this.worker = worker;
        this.pool = pool;
        this.batchSize = config.admin().requeueBatchSize();
    }

    /** @return whether the row was a dead letter and is pending again */
    public Uni<Boolean> requeue(LeasedTable table, long id, String actor) {
        String target = table.table() + "#" + id;
        return pool.withTransaction(tx -> leases.requeue(tx, table, id).flatMap(requeued -> requeued
                        ? audit.record(tx, actor, AuditAction.REQUEUE, target, 1)
                        : Uni.createFrom().item(-1L)))
                .map(entry -> {
                    if (entry < 0) {
                        return false;
                    }
                    audit.logged(entry, actor, AuditAction.REQUEUE, target, 1);
                    worker.handOff(table, id);
                    return true;
                });
    }

    /** The dry run: what a filter matches now. Nothing changes, so nothing is audited. */
    public Uni<DeadLetters.Selection> select(DeadLetters.Filter filter) {
        return deadLetters.select(filter);
    }

    /**
     * Requeues the rows of a dry run's selection that are still dead, in batches of
     * {@code paycallback.admin.requeue-batch-size}, one transaction each. The scanner picks them up as due rows.
     */
    public Uni<Applied> apply(DeadLetters.Selection selection, String actor) {
        String target = describe(selection);
        return pool.withTransaction(tx -> audit.record(tx, actor, AuditAction.BULK_REQUEUE, target, 0))
                .flatMap(entry -> Multi.createBy().repeating()
                        .uni(() -> pool.withTransaction(tx -> deadLetters.requeueBatch(tx, selection, batchSize)
                                .call(rows -> rows == 0 ? Uni.createFrom().voidItem() : audit.addRows(tx, entry, rows))))
                        .whilst(rows -> rows == batchSize)
                        .collect().asList()
                        .map(batches -> {
                            long requeued = batches.stream().mapToLong(Integer::longValue).sum();
                            audit.logged(entry, actor, AuditAction.BULK_REQUEUE, target, requeued);
                            return new Applied(entry, requeued, batches.size());
                        }));
    }

    /** The audit target of a bulk requeue: the table and every condition, so the entry says exactly what was swept. */
    static String describe(DeadLetters.Selection selection) {
        DeadLetters.Filter filter = selection.filter();
        List<String> parts = new ArrayList<>();
        parts.add(filter.table().table() + " dead");
        parts.add("died " + (filter.diedFrom() == null ? "" : "from " + filter.diedFrom() + " ") + "before " + selection.cutOff());
        if (filter.channel() != null) {
            parts.add("channel " + filter.channel());
        }
        if (filter.merchantId() != null) {
            parts.add("merchant " + filter.merchantId());
        }
        if (filter.destination() != null) {
            parts.add("destination " + filter.destination());
        }
        if (filter.errorContains() != null) {
            parts.add("error contains '" + filter.errorContains() + "'");
        }
        parts.add("ids " + selection.firstId() + ".." + selection.lastId());
        parts.add(selection.matched() + " matched in the dry run");
        return String.join(", ", parts);
    }
}
