package io.paycallback.ops;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.paycallback.config.RequeueConfig;
import io.paycallback.lease.LeasedTable;
import io.paycallback.lease.LeasedTableRegistry;
import io.paycallback.trade.ChannelId;
import io.quarkus.runtime.annotations.RegisterForReflection;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

import java.io.IOException;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;

/**
 * Dead letters requeued by filter, in two steps: a dry run counts what the filter matches and answers a token that
 * pins exactly those rows (the time of death before a cut-off taken from the database's clock, and the id range seen
 * then), and the apply requeues the rows of that token that are still dead, in batches of
 * {@code paycallback.admin.requeue-batch-size}, one transaction each. The apply is audited by an entry written first,
 * whose row count grows in each batch's transaction. The token is base64url JSON, opaque to the caller and not signed:
 * an operator who holds it may requeue anything anyway; one that does not decode is refused.
 */
@ApplicationScoped
@RegisterForReflection(targets = {DeadLetters.Selection.class, DeadLetters.Filter.class, LeasedTable.class})
public class BulkRequeues {

    /** What to requeue, as an operator writes it; a null field matches everything. */
    public record Criteria(String table, LocalDateTime from, LocalDateTime to, String channel, String merchantId,
                           String destination, String errorContains) {
    }

    @Schema(name = "BulkRequeueDryRun")
    public record DryRun(boolean dryRun, String table, long matched, Long firstId, Long lastId, LocalDateTime diedBefore,
                         @Schema(description = "send it back with \"dryRun\": false to requeue exactly these rows") String token) {
    }

    @Schema(name = "BulkRequeueApplied")
    public record Applied(boolean dryRun, String table, long matched, long requeued, int batches, long auditId) {
    }

    static final int ERROR_TEXT_LENGTH = 200;

    private final LeasedTableRegistry tables;
    private final DeadLetters deadLetters;
    private final AuditLog audit;
    private final Pool pool;
    private final ObjectMapper json;
    private final int batchSize;

    public BulkRequeues(LeasedTableRegistry tables, DeadLetters deadLetters, AuditLog audit, Pool pool, ObjectMapper json,
                        RequeueConfig config) {
        this.tables = tables;
        this.deadLetters = deadLetters;
        this.audit = audit;
        this.pool = pool;
        this.json = json;
        this.batchSize = config.requeueBatchSize();
    }

    /** Counts what the criteria match now and answers the token of exactly those rows. Nothing changes. */
    @OperatorAction.Performs(OperatorAction.BULK_REQUEUE_DRY_RUN)
    public Uni<ActionResult<DryRun>> dryRun(Criteria criteria) {
        DeadLetters.Filter filter;
        try {
            filter = filter(criteria);
        } catch (IllegalArgumentException e) {
            return Uni.createFrom().item(ActionResult.refused(e.getMessage()));
        }
        return deadLetters.select(filter).map(selection -> ActionResult.done(dryRun(selection, encode(selection)),
                selection.matched() + " dead letters match"));
    }

    /** The dry run a token stands for, as it was counted. */
    @OperatorAction.Performs(OperatorAction.BULK_REQUEUE_RECOUNT)
    public ActionResult<DryRun> recount(String token) {
        try {
            return ActionResult.done(dryRun(decode(token), token), "the dry run of this token");
        } catch (IllegalArgumentException e) {
            return ActionResult.refused(e.getMessage());
        }
    }

    /** Requeues the rows of a dry run's token that are still dead. */
    @OperatorAction.Performs(OperatorAction.BULK_REQUEUE_APPLY)
    public Uni<ActionResult<Applied>> apply(String token, String actor) {
        DeadLetters.Selection selection;
        try {
            selection = decode(token);
        } catch (IllegalArgumentException e) {
            return Uni.createFrom().item(ActionResult.refused(e.getMessage()));
        }
        String target = describe(selection);
        AuditLog.Entry audited = audit.entry(actor, AuditAction.BULK_REQUEUE, target);
        return pool.withTransaction(tx -> audited.write(tx, 0))
                .flatMap(entry -> Multi.createBy().repeating()
                        .uni(() -> pool.withTransaction(tx -> deadLetters.requeueBatch(tx, selection, batchSize)
                                .call(rows -> rows == 0 ? Uni.createFrom().voidItem() : audited.write(tx, rows))))
                        .whilst(rows -> rows == batchSize)
                        .collect().asList()
                        .map(batches -> {
                            long requeued = batches.stream().mapToLong(Integer::longValue).sum();
                            audited.logged();
                            return ActionResult.done(new Applied(false, selection.filter().table().label(),
                                            selection.matched(), requeued, batches.size(), entry),
                                    "requeued " + requeued + " of the " + selection.matched() + " counted, in "
                                            + batches.size() + " batches (audit #" + entry + ")");
                        }));
    }

    private DeadLetters.Filter filter(Criteria criteria) {
        LeasedTable table = tables.byLabel(criteria.table() == null ? "" : criteria.table()).orElseThrow(() ->
                new IllegalArgumentException("table is one of " + tables.labels()));
        if (criteria.channel() != null && ChannelId.fromPath(criteria.channel()).isEmpty()) {
            throw new IllegalArgumentException("channel is wxpay, alipay or stripe");
        }
        if (criteria.errorContains() != null
                && (criteria.errorContains().isEmpty() || criteria.errorContains().length() > ERROR_TEXT_LENGTH)) {
            throw new IllegalArgumentException("errorContains is 1.." + ERROR_TEXT_LENGTH + " characters");
        }
        return new DeadLetters.Filter(table, criteria.from(), criteria.to(), criteria.channel(), criteria.merchantId(),
                criteria.destination(), criteria.errorContains());
    }

    private static DryRun dryRun(DeadLetters.Selection selection, String token) {
        boolean none = selection.matched() == 0;
        return new DryRun(true, selection.filter().table().label(), selection.matched(),
                none ? null : selection.firstId(), none ? null : selection.lastId(), selection.cutOff(), token);
    }

    String encode(DeadLetters.Selection selection) {
        try {
            return Base64.getUrlEncoder().withoutPadding().encodeToString(json.writeValueAsBytes(selection));
        } catch (IOException e) {
            throw new IllegalStateException("a selection is always writable as JSON", e);
        }
    }

    /** @throws IllegalArgumentException when the token is not one of ours */
    DeadLetters.Selection decode(String token) {
        try {
            DeadLetters.Selection selection = json.readValue(Base64.getUrlDecoder().decode(token == null ? "" : token),
                    DeadLetters.Selection.class);
            if (selection == null || selection.filter() == null || selection.cutOff() == null
                    || !tables.byLabel(selection.filter().table().label()).equals(Optional.of(selection.filter().table()))) {
                throw new IllegalArgumentException("the token is incomplete");
            }
            return selection;
        } catch (IOException | RuntimeException e) {
            throw new IllegalArgumentException("not a requeue token from a dry run");
        }
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
