package io.paycallback.providercall;

import io.paycallback.lease.AfterCommit;
import io.paycallback.lease.Attempted;
import io.paycallback.lease.RowLease;
import io.paycallback.lease.LeaseHandler;
import io.paycallback.lease.LeasedRow;
import io.paycallback.lease.LeasedTable;
import io.paycallback.lease.LeaseStatements;
import io.paycallback.provider.ProviderException;
import io.paycallback.trade.ChannelId;
import io.paycallback.tracing.SpanAttribute;
import io.paycallback.tracing.SpanName;
import io.paycallback.tracing.Traceparent;
import io.paycallback.tracing.Traced;
import io.paycallback.tracing.Tracing;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.SqlClient;
import org.jboss.logging.Logger;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The one shape of a leased table whose try calls a provider: read the row under its lease, make the calls (each one
 * recorded with its answer for the order's timeline, whatever becomes of the try), then finish, reschedule or bury the
 * row in one transaction with whatever the answer changes. A try that throws is left to the backoff of
 * {@link io.paycallback.lease.LeaseProcessor}, and after the last one {@link #alert} says why. A subclass is only its
 * request and its answer: {@link #load}, {@link #call} and {@link #alert}. Subclasses are {@code @Singleton} beans:
 * a client proxy could not subclass this constructor, and nothing needs one.
 *
 * @param <R> what a row is about
 */
public abstract class ProviderCallHandler<R> implements LeaseHandler {

    private static final Logger LOG = Logger.getLogger(ProviderCallHandler.class);

    protected final Pool pool;
    protected final LeaseStatements leases;
    protected final Duration timeout;
    private final ProviderCalls calls;
    private final LeasedTable table;
    private final List<String> results;
    private final Tracing tracing;

    /**
     * @param results what a try that is not a dead letter may come to: its constants are the metric's result tags
     */
    protected ProviderCallHandler(LeasedTable table, Class<? extends Enum<?>> results, Pool pool, LeaseStatements leases,
                                  ProviderCalls calls, Duration timeout, Tracing tracing) {
        this.table = table;
        this.tracing = tracing;
        this.results = Arrays.stream(results.getEnumConstants()).map(ProviderCallHandler::tag).toList();
        this.pool = pool;
        this.leases = leases;
        this.calls = calls;
        this.timeout = timeout;
    }

    /** What the row is about, read under its lease (or, for {@link #giveUp}, inside the burying transaction). */
    protected abstract Uni<R> load(SqlClient client, long id);

    /** One try: the provider calls, through {@link Calls#ask}, and what becomes of the row. Blocking. */
    protected abstract AfterCall call(RowLease lease, R row, Calls calls);

    /** The alert for a row given up on, inside the transaction that buries it. */
    protected abstract Uni<AfterCommit> alert(SqlClient transaction, R row, String reason);

    /** The span that wrote the row, which its tries continue; empty for rows written apart from any trace. */
    protected Optional<Traceparent> cause(R row) {
        return Optional.empty();
    }

    /** Work written in the same transaction as the row's outcome; what it leaves for after the commit. */
    @FunctionalInterface
    public interface Writes extends Function<SqlClient, Uni<AfterCommit>> {
        Writes NONE = transaction -> Uni.createFrom().item(AfterCommit.NOTHING);
    }

    /** What becomes of the row after its calls. */
    public sealed interface AfterCall {
    }

    /** The row is done; {@code result} is one of the handler's results. */
    public record Finished(Enum<?> result, Writes writes) implements AfterCall {
        public Finished(Enum<?> result) {
            this(result, Writes.NONE);
        }
    }

    /** Asked again after {@code delay}, the try counted; {@code note} is kept as the row's last_error. */
    public record Again(Enum<?> result, Duration delay, String note, Writes writes) implements AfterCall {
        public Again(Enum<?> result, Duration delay, String note) {
            this(result, delay, note, Writes.NONE);
        }
    }

    /** Given up at once (refused, mismatched, out of rounds): dead letter and {@link #alert}. */
    public record GiveUp(String reason) implements AfterCall {
    }

    /**
     * The next round on a schedule of its own (queries that wait for the provider, not failures), or the end of it.
     *
     * @param lastReason why the row is given up after the last round
     */
    public static AfterCall nextRound(RowLease lease, List<Duration> schedule, Enum<?> result, String note,
                                    Supplier<String> lastReason) {
        int round = lease.failures();
        return round < schedule.size()
                ? new Again(result, schedule.get(round), note)
                : new GiveUp(lastReason.get());
    }

    @Override
    public final LeasedTable table() {
        return table;
    }

    @Override
    public final List<String> results() {
        return results;
    }

    @Override
    public final boolean batches() {
        return false;
    }

    @Override
    public final Attempted attempt(List<LeasedRow> batch) {
        return Attempted.eachAlone(batch, this::attempt);
    }

    /**
     * A try is a span continuing the row's cause, current on this thread while the provider is asked (its calls are
     * its children, its log lines carry its trace id), ended with what the try came to.
     */
    protected final Attempted attempt(RowLease lease) {
        R row = load(pool, lease.id()).await().atMost(timeout);
        Traced span = tracing.startFrom(SpanName.PROVIDER_TRY, cause(row))
                .set(SpanAttribute.TABLE, table.table())
                .set(SpanAttribute.ROW, lease.id())
                .set(SpanAttribute.TRY, lease.failures() + 1L);
        return Attempted.traced(span, () -> attempt(lease, row));
    }

    private Attempted attempt(RowLease lease, R row) {
        Calls made = new Calls();
        AfterCall outcome;
        try {
            outcome = call(lease, row, made);
        } finally {
            write(made);
        }
        if (outcome instanceof Finished finished) {
            AfterCommit next = pool.withTransaction(tx -> finished.writes().apply(tx)
                    .call(() -> leases.finish(tx, lease))).await().atMost(timeout);
            return Attempted.done(lease, tag(finished.result()), next);
        }
        if (outcome instanceof Again again) {
            AfterCommit next = pool.withTransaction(tx -> again.writes().apply(tx)
                    .call(() -> leases.reschedule(tx, lease, again.delay(), again.note()))).await().atMost(timeout);
            return Attempted.done(lease, tag(again.result()), next);
        }
        String reason = ((GiveUp) outcome).reason();
        AfterCommit alert = pool.withTransaction(tx -> leases.bury(tx, lease, reason)
                .chain(() -> alert(tx, row, reason))).await().atMost(timeout);
        return Attempted.dead(lease, reason, alert);
    }

    /** The alert for a row given up on after its last try, in the transaction that buries it. */
    @Override
    public final Uni<AfterCommit> giveUp(SqlClient transaction, RowLease lease, String reason) {
        return load(transaction, lease.id()).flatMap(row -> alert(transaction, row, "dead letter: " + reason));
    }

    private static String tag(Enum<?> result) {
        return result.name().toLowerCase(Locale.ROOT);
    }

    /** The calls are what the provider saw, so they are kept even when the try's outcome is not (a lost lease). */
    private void write(Calls made) {
        try {
            calls.record(pool, made.list).await().atMost(timeout);
        } catch (RuntimeException e) {
            LOG.warnf("Could not record %d provider calls: %s", made.list.size(), e.toString());
        }
    }

    /** The calls of one try, each with its answer. */
    public static final class Calls {

        private final List<ProviderCalls.Call> list = new ArrayList<>();

        /**
         * Makes one call and records it: its answer in the words of {@code said}, or its failure, which is rethrown.
         *
         * @param subject the refund number of a refund call, else null
         */
        public <T> T ask(String merchantId, String outTradeNo, ChannelId channel, String operation, String subject,
                         Supplier<Uni<T>> request, Function<T, String> said, Duration timeout) {
            try {
                T answer = request.get().await().atMost(timeout);
                list.add(new ProviderCalls.Call(merchantId, outTradeNo, channel.path(), operation, subject, said.apply(answer)));
                return answer;
            } catch (ProviderException failed) {
                list.add(new ProviderCalls.Call(merchantId, outTradeNo, channel.path(), operation, subject,
                        "failed: " + failed.getMessage()));
                throw failed;
            } catch (RuntimeException failed) {
                list.add(new ProviderCalls.Call(merchantId, outTradeNo, channel.path(), operation, subject,
                        "failed: " + failed.getClass().getSimpleName()));
                throw failed;
            }
        }
    }
}
