package io.paycallback.lease;

import io.paycallback.db.LostRaces;
import io.paycallback.db.MySqlErrors;
import io.paycallback.lease.RowLease;
import io.paycallback.lease.LeaseLostException;
import io.paycallback.lease.LeaseStatements;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.SqlClient;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The batch rule for tables whose try is database work only: all rows of a batch in one transaction with one commit,
 * the finished ones closed with one statement fenced per row by its lease. Optimistic: when anything in the batch
 * fails (one row's own failure, a lost lease, a lock contest, the commit itself), the whole batch rolls back and each
 * row is tried again alone, in its own transaction, as if it had never been batched. So a row's failure costs the
 * others one rolled-back attempt, never their outcome, and every guarantee of a single try holds per row.
 */
@ApplicationScoped
public class BatchTransactions {

    private static final Logger LOG = Logger.getLogger(BatchTransactions.class);

    /** The business part of a batch's transaction. */
    @FunctionalInterface
    public interface Work {
        /**
         * Every row's step inside the transaction, in a stable order of the business keys they lock, so two batches
         * never wait for each other in a circle. Fails as a whole when any row fails.
         */
        Uni<Applied> apply(SqlClient transaction, List<RowLease> batch);
    }

    /** @param next what the transaction leaves to do once committed */
    public record Applied(List<Step> steps, AfterCommit next) {
    }

    /** One row's step: done with a result tag, or (with a reason) dead at once. */
    public record Step(RowLease lease, String result, String deadReason) {

        public static Step done(RowLease lease, String result) {
            return new Step(lease, result, null);
        }

        public static Step dead(RowLease lease, String reason) {
            return new Step(lease, null, reason);
        }
    }

    private final Pool pool;
    private final LeaseStatements leases;
    private final LostRaces lostRaces;
    private final Duration leaseTime;

    public BatchTransactions(Pool pool, LeaseStatements leases, LostRaces lostRaces, LeaseConfig config) {
        this.pool = pool;
        this.leases = leases;
        this.lostRaces = lostRaces;
        this.leaseTime = config.lease();
    }

    /** Blocks; never fails as a whole. */
    public Attempted run(List<RowLease> batch, Work work) {
        try {
            Applied applied = pool.withTransaction(tx -> work.apply(tx, batch).call(done -> close(tx, done)))
                    .await().atMost(leaseTime);
            List<Tried> rows = new ArrayList<>(applied.steps().size());
            for (Step step : applied.steps()) {
                rows.add(step.deadReason() == null ? new Tried.Done(step.lease(), step.result())
                        : new Tried.Dead(step.lease(), step.deadReason()));
            }
            return new Attempted(rows, applied.next());
        } catch (RuntimeException failure) {
            if (batch.size() == 1) {
                RowLease lease = batch.get(0);
                return Attempted.of(failure instanceof LeaseLostException ? new Tried.Lost(lease)
                        : new Tried.Failed(lease, failure));
            }
            if (MySqlErrors.isLostRace(failure)) {
                lostRaces.record(LostRaces.At.TRANSACTION);
            }
            LOG.debugf("A batch of %d rows of %s rolled back, each is tried alone: %s", batch.size(),
                    batch.get(0).table().table(), failure.toString());
            List<Attempted> alone = new ArrayList<>(batch.size());
            for (RowLease lease : batch) {
                alone.add(run(List.of(lease), work));
            }
            return Attempted.all(alone);
        }
    }

    private Uni<Void> close(SqlClient transaction, Applied applied) {
        List<RowLease> finished = new ArrayList<>(applied.steps().size());
        Uni<Void> buried = Uni.createFrom().voidItem();
        for (Step step : applied.steps()) {
            if (step.deadReason() == null) {
                finished.add(step.lease());
            } else {
                buried = buried.chain(() -> leases.bury(transaction, step.lease(), step.deadReason()));
            }
        }
        return finished.isEmpty() ? buried : buried.chain(() -> leases.finishAll(transaction, finished));
    }
}
