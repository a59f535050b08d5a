package io.paycallback.ops;

import io.paycallback.statement.Discrepancies;
import io.paycallback.statement.StatementRuns;
import io.paycallback.trade.ChannelId;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.LocalDate;
import java.util.Optional;

/**
 * An operator's statement actions, each audited in the same transaction as the change: resolving a discrepancy with a
 * note, and running a date again. The API and the console call these, so both are audited alike.
 */
@ApplicationScoped
public class StatementActions {

    /** What resolving came to. */
    public sealed interface Resolution {
        record Resolved(Discrepancies.Discrepancy discrepancy, long auditId) implements Resolution {
        }

        record NotFound() implements Resolution {
        }

        /** Repaired or resolved already: nothing changed. */
        record NotOpen(Discrepancies.Discrepancy discrepancy) implements Resolution {
        }
    }

    /** What re-running a date came to. */
    public record Rerun(StatementRuns.Rerun outcome, long auditId) {
    }

    private final Pool pool;
    private final Discrepancies discrepancies;
    private final StatementRuns runs;
    private final AuditLog audit;

    public StatementActions(Pool pool, Discrepancies discrepancies, StatementRuns runs, AuditLog audit) {
        this.pool = pool;
        this.discrepancies = discrepancies;
        this.runs = runs;
        this.audit = audit;
    }

    public Uni<Resolution> resolve(long id, String note, String actor) {
        String target = "statement_discrepancies#" + id + ": " + note;
        return pool.withTransaction(tx -> discrepancies.resolve(tx, id, note, actor).flatMap(resolved -> resolved
                        ? audit.record(tx, actor, AuditAction.STATEMENT_RESOLVE, target, 1).map(Optional::of)
                        : Uni.createFrom().item(Optional.<Long>empty()))
                        .flatMap(entry -> discrepancies.find(tx, id).map(found -> {
                            if (found.isEmpty()) {
                                return (Resolution) new Resolution.NotFound();
                            }
                            return entry.isPresent()
                                    ? new Resolution.Resolved(found.get(), entry.get())
                                    : new Resolution.NotOpen(found.get());
                        })))
                .invoke(resolution -> {
                    if (resolution instanceof Resolution.Resolved resolved) {
                        audit.logged(resolved.auditId(), actor, AuditAction.STATEMENT_RESOLVE, target, 1);
                    }
                });
    }

    public Uni<Rerun> rerun(String merchantId, ChannelId channel, LocalDate billDate, String actor) {
        String target = "statement_runs " + merchantId + "/" + channel.path() + "/" + billDate;
        return pool.withTransaction(tx -> runs.rerun(tx, merchantId, channel, billDate).flatMap(outcome ->
                        outcome == StatementRuns.Rerun.ALREADY_PENDING
                                ? Uni.createFrom().item(new Rerun(outcome, 0))
                                : audit.record(tx, actor, AuditAction.STATEMENT_RERUN, target, 1)
                                .map(entry -> new Rerun(outcome, entry))))
                .invoke(rerun -> {
                    if (rerun.auditId() > 0) {
                        audit.logged(rerun.auditId(), actor, AuditAction.STATEMENT_RERUN, target, 1);
                    }
                });
    }
}
