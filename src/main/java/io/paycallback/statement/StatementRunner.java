package io.paycallback.statement;

import io.paycallback.config.DatabaseConfig;
import io.paycallback.lease.AfterCommit;
import io.paycallback.lease.Attempted;
import io.paycallback.lease.RowLease;
import io.paycallback.lease.LeaseHandler;
import io.paycallback.lease.LeasedRow;
import io.paycallback.lease.LeasedTable;
import io.paycallback.lease.LeaseStatements;
import io.paycallback.outbox.DownstreamEvent;
import io.paycallback.outbox.Emitted;
import io.paycallback.outbox.Outbox;
import io.paycallback.outbox.Subject;
import io.paycallback.provider.ProviderClients;
import io.paycallback.provider.ProviderConfig;
import io.paycallback.provider.StatementClient;
import io.paycallback.provider.TradeBill;
import io.paycallback.statement.StatementRuns.Run;
import io.paycallback.statement.bill.BillException;
import io.paycallback.statement.bill.BillTotals;
import io.paycallback.tracing.SpanAttribute;
import io.paycallback.tracing.SpanName;
import io.paycallback.tracing.Traced;
import io.paycallback.tracing.Tracing;
import io.smallrye.common.annotation.Identifier;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.SqlConnection;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.function.Function;

/**
 * One try of a statement run, on a worker thread under the run's lease: fetch the provider's bill of the day, stream
 * it through its reader into the staging table, and only once the reader returned (totals and digest good) compare
 * it with the ledger, repair what is safe, and record both sides' totals. A bill that cannot be read (malformed, cut
 * short, digest mismatch) fails the try and compares nothing; its staged lines are deleted, and the backoff tries
 * again. A bill the provider is still making is asked for again later without counting a try.
 */
@ApplicationScoped
public class StatementRunner implements LeaseHandler {

    private static final Logger LOG = Logger.getLogger(StatementRunner.class);

    /**
     * A run of a big bill takes minutes (a million lines in about a minute here), longer than the scanner's lease: the
     * run keeps its row this long and renews it while lines stream in. A crashed instance's run waits this long.
     */
    static final Duration RUN_LEASE = Duration.ofMinutes(10);
    private static final Duration HEARTBEAT = Duration.ofMinutes(1);
    /** Provider queries per try at most; a re-run repairs the rest. */
    static final int REPAIRS_PER_TRY = 1000;

    private final Tracing tracing;
    private final Pool pool;
    private final Pool bulk;
    private final LeaseStatements leases;
    private final StatementRuns runs;
    private final StatementLines lines;
    private final Comparison comparison;
    private final Discrepancies discrepancies;
    private final Repairs repairs;
    private final ProviderClients providers;
    private final Outbox outbox;
    private final StatementMetrics metrics;
    private final Clock clock;
    private final StatementConfig settings;
    private final Duration timeout;
    private final Duration compareTimeout = RUN_LEASE;

    /** @param bulk the same pool, whose statements may run as long as the comparison's set-based ones need */
    public StatementRunner(Pool pool, @Identifier(DatabaseConfig.BULK_POOL) Pool bulk, LeaseStatements leases,
                           StatementRuns runs, StatementLines lines, Comparison comparison,
                           Discrepancies discrepancies, Repairs repairs, ProviderClients providers, Outbox outbox,
                           StatementMetrics metrics, Clock clock, Tracing tracing,
                           ProviderConfig providerConfig, StatementConfig config) {
        this.pool = pool;
        this.tracing = tracing;
        this.bulk = bulk;
        this.leases = leases;
        this.runs = runs;
        this.lines = lines;
        this.comparison = comparison;
        this.discrepancies = discrepancies;
        this.repairs = repairs;
        this.providers = providers;
        this.outbox = outbox;
        this.metrics = metrics;
        this.clock = clock;
        this.settings = config;
        this.timeout = providerConfig.timeout().multipliedBy(2).plusSeconds(30);
    }

    @Override
    public LeasedTable table() {
        return StatementRuns.TABLE;
    }

    @Override
    public boolean batches() {
        return false;
    }

    @Override
    public List<String> results() {
        return List.of(StatementMetrics.RunTry.MATCHED.tag(), StatementMetrics.RunTry.DIFFERENCES.tag(),
                StatementMetrics.RunTry.CREATING.tag());
    }

    @Override
    public Attempted attempt(List<LeasedRow> batch) {
        return Attempted.eachAlone(batch, this::attempt);
    }

    /**
     * A run's try is a trace of its own (a schedule, not a callback, caused it), current on this thread: the provider
     * calls are its children, a payment or refund it repairs keeps its traceparent, so that one's transition and
     * events continue it, and its log line carries its trace id.
     */
    Attempted attempt(RowLease lease) {
        Traced span = tracing.startRoot(SpanName.STATEMENT_RUN)
                .set(SpanAttribute.TABLE, StatementRuns.TABLE.table())
                .set(SpanAttribute.ROW, lease.id())
                .set(SpanAttribute.TRY, lease.failures() + 1L);
        return Attempted.traced(span, () -> run(lease));
    }

    private Attempted run(RowLease lease) {
        runs.extend(pool, lease, RUN_LEASE).await().atMost(timeout);
        Run run = runs.find(pool, lease.id()).await().atMost(timeout);
        StatementClient client = providers.statements(run.channel(), run.merchantId()).orElseThrow(() ->
                new IllegalStateException("merchant " + run.merchantId() + " has no API keys for " + run.channel().path()));
        lines.deleteRun(run.id(), compareTimeout);
        TradeBill bill = client.tradeBill(run.merchantId(), run.billDate());
        if (bill instanceof TradeBill.NotReady notReady) {
            return notReady(lease, run, notReady);
        }
        long started = System.nanoTime();
        Heartbeat heartbeat = new Heartbeat(lease);
        StagingSink sink = new StagingSink(pool, lines, run.id(), settings.insertBatch(), timeout, heartbeat);
        String digest;
        try {
            digest = BillReading.read(run.channel(), bill, sink);
        } catch (BillException unreadable) {
            lines.deleteRun(run.id(), compareTimeout);
            throw new IllegalStateException("bill " + describe(unreadable) + ": " + unreadable.getMessage());
        } catch (IOException broken) {
            lines.deleteRun(run.id(), compareTimeout);
            throw new IllegalStateException("bill download broke off: " + broken);
        }
        long staged = System.nanoTime();
        runs.extend(pool, lease, RUN_LEASE).await().atMost(timeout);
        Comparison.Day day = day(run);
        long window = Math.max(1, settings.crossDayWindow().toDays());
        List<Long> neighbours = runs.neighbours(pool, run, window).await().atMost(timeout);
        BillTotals ours = readCommitted(tx -> comparison.compare(tx, run, day, neighbours)
                .chain(() -> comparison.ours(tx, run, day)));
        comparison.listedElsewhere(bulk, run).await().atMost(compareTimeout);
        comparison.openDue(bulk).await().atMost(compareTimeout);
        metrics.linesCompared(run.channel(), sink.count());
        long compared = System.nanoTime();
        int repaired = 0;
        for (Discrepancies.Discrepancy missing : discrepancies.repairable(run.id(), REPAIRS_PER_TRY).await().atMost(timeout)) {
            heartbeat.run();
            repaired += repairs.repair(missing, timeout) ? 1 : 0;
        }
        long open = comparison.openOf(pool, run.id()).await().atMost(timeout);
        RunState state = open == 0 ? RunState.MATCHED : RunState.DIFFERENCES;
        pool.withTransaction(tx -> runs.record(tx, lease, state, digest, sink.totals(), ours, sink.count())
                .chain(() -> leases.finish(tx, lease))).await().atMost(timeout);
        lines.deleteAged(run.merchantId(), run.channel().path(), run.billDate().minusDays(window + 1), compareTimeout);
        StatementMetrics.RunTry result = state == RunState.MATCHED
                ? StatementMetrics.RunTry.MATCHED : StatementMetrics.RunTry.DIFFERENCES;
        metrics.run(run.channel(), result);
        // Where a slow run spent its time: the download and staging, the set-based comparison, the repairs' queries.
        LOG.infof("Statement %s of merchant %s for %s: %d lines, %d open, %d repaired; read and staged in %.1f s,"
                        + " compared in %.1f s, repairs and record %.1f s", run.channel().path(), run.merchantId(),
                run.billDate(), sink.count(), open, repaired, (staged - started) / 1e9, (compared - staged) / 1e9,
                (System.nanoTime() - compared) / 1e9);
        return Attempted.done(lease, result.tag());
    }

    /**
     * The provider is still making the bill: ask again after {@code creating-retry}, without counting a try, until the
     * end of the day after the bill date in the provider's zone; then give up with an alert.
     */
    private Attempted notReady(RowLease lease, Run run, TradeBill.NotReady notReady) {
        ZoneId zone = Providers.zone(run.channel());
        Instant endOfDay = run.billDate().plusDays(2).atStartOfDay(zone).toInstant();
        if (clock.instant().plus(settings.creatingRetry()).isBefore(endOfDay)) {
            pool.withTransaction(tx -> runs.state(tx, lease, RunState.CREATING)
                    .chain(() -> leases.release(tx, lease, settings.creatingRetry(), "bill not ready: " + notReady.code())))
                    .await().atMost(timeout);
            metrics.run(run.channel(), StatementMetrics.RunTry.CREATING);
            return Attempted.done(lease, StatementMetrics.RunTry.CREATING.tag());
        }
        String reason = "the provider was still making the bill at the end of the day: " + notReady.code();
        AfterCommit alert = pool.withTransaction(tx -> leases.bury(tx, lease, reason)
                .chain(() -> giveUp(tx, lease, reason))).await().atMost(timeout);
        metrics.run(run.channel(), StatementMetrics.RunTry.DEAD);
        return Attempted.dead(lease, reason, alert);
    }

    /** The failed try's run says so, in the transaction that reschedules or buries it. */
    @Override
    public Uni<Void> recordFailure(SqlClient client, RowLease lease, RuntimeException failure) {
        return runs.stateOf(client, lease.id(), RunState.RETRYING);
    }

    @Override
    public Uni<AfterCommit> giveUp(SqlClient transaction, RowLease lease, String reason) {
        return runs.stateOf(transaction, lease.id(), RunState.FAILED)
                .chain(() -> runs.find(transaction, lease.id()))
                .flatMap(run -> {
                    metrics.run(run.channel(), StatementMetrics.RunTry.DEAD);
                    return outbox.emit(transaction, new DownstreamEvent.Alert("statement:" + run.id(),
                            Subject.Trade.channel(run.merchantId(), run.channel().path()),
                            "statement run of " + run.billDate() + " given up: " + reason));
                })
                .map(emitted -> (AfterCommit) new Emitted(emitted));
    }

    /** The run's day in the provider's zone, as the database's clock writes times, and when "missing" becomes open. */
    private Comparison.Day day(Run run) {
        int offsetSeconds = pool.query("SELECT TIMESTAMPDIFF(SECOND, UTC_TIMESTAMP(3), NOW(3))").execute()
                .map(rows -> rows.iterator().next().getInteger(0)).await().atMost(timeout);
        ZoneOffset database = ZoneOffset.ofTotalSeconds(Math.round(offsetSeconds / 60f) * 60);
        ZoneId zone = Providers.zone(run.channel());
        Instant from = run.billDate().atStartOfDay(zone).toInstant();
        Instant to = run.billDate().plusDays(1).atStartOfDay(zone).toInstant();
        return new Comparison.Day(LocalDateTime.ofInstant(from, database), LocalDateTime.ofInstant(to, database),
                LocalDateTime.ofInstant(to.plus(settings.crossDayWindow()), database));
    }

    /**
     * Runs the comparison in one transaction at READ COMMITTED: at MySQL's default REPEATABLE READ, an
     * INSERT ... SELECT locks every ledger row it reads until the commit, and would stall the payments meanwhile.
     */
    private <T> T readCommitted(Function<SqlConnection, Uni<T>> work) {
        return bulk.withConnection(connection -> connection.query("SET TRANSACTION ISOLATION LEVEL READ COMMITTED")
                .execute().chain(() -> connection.begin()).flatMap(tx -> work.apply(connection)
                        .call(tx::commit)
                        .onFailure().call(failure -> tx.rollback().onFailure().recoverWithNull())))
                .await().atMost(compareTimeout);
    }

    private static String describe(BillException failure) {
        if (failure instanceof BillException.Tampered) {
            return "tampered (digest mismatch)";
        }
        return failure instanceof BillException.Incomplete ? "incomplete" : "malformed";
    }

    /** Renews the run's lease while a long bill streams in, at most once a minute. */
    private final class Heartbeat implements Runnable {
        private final RowLease lease;
        private Instant last = Instant.now();

        Heartbeat(RowLease lease) {
            this.lease = lease;
        }

        @Override
        public void run() {
            Instant now = Instant.now();
            if (Duration.between(last, now).compareTo(HEARTBEAT) >= 0) {
                runs.extend(pool, lease, RUN_LEASE).await().atMost(timeout);
                last = now;
            }
        }
    }
}
