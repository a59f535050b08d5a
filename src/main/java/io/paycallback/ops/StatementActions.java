package io.paycallback.ops;

import io.paycallback.provider.ProviderClients;
import io.paycallback.statement.Discrepancies;
import io.paycallback.statement.DiscrepancyKind;
import io.paycallback.statement.DiscrepancyState;
import io.paycallback.statement.StatementRuns;
import io.paycallback.trade.ChannelId;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

import java.time.Clock;
import java.time.LocalDate;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * An operator's statement actions: runs per day and provider with both sides' totals, discrepancies by filter,
 * resolving one with a note, and running a date again. Each change is audited in the same transaction as the change.
 */
@ApplicationScoped
public class StatementActions {

    static final int MAX_DAYS = 93;

    /** Which discrepancies, as an operator writes it; a null field matches everything. */
    public record DiscrepancyCriteria(String kind, String state, String channel, String billDate, Long runId) {
    }

    /** What re-running a date came to. */
    @Schema(name = "StatementRerun")
    public record Rerun(StatementRuns.Rerun outcome, long auditId) {
    }

    private final Pool pool;
    private final Discrepancies discrepancies;
    private final StatementRuns runs;
    private final ProviderClients providers;
    private final AuditLog audit;
    private final Clock clock;

    public StatementActions(Pool pool, Discrepancies discrepancies, StatementRuns runs, ProviderClients providers,
                            AuditLog audit, Clock clock) {
        this.pool = pool;
        this.discrepancies = discrepancies;
        this.runs = runs;
        this.providers = providers;
        this.audit = audit;
        this.clock = clock;
    }

    /**
     * The runs of the days from {@code from} to {@code to} (dates as yyyy-MM-dd), newest date first. Without
     * {@code to}, up to today; without {@code from}, {@link OperatorDefaults#STATEMENT_WINDOW} before {@code to}.
     */
    @OperatorAction.Performs(OperatorAction.STATEMENT_RUNS)
    public Uni<ActionResult<List<StatementRuns.Run>>> runs(String from, String to, String channel, String merchantId,
                                                          int limit) {
        Optional<LocalDate> last = to == null ? Optional.of(LocalDate.now(clock)) : date(to);
        Optional<LocalDate> first = from == null ? last.map(day -> day.minus(OperatorDefaults.STATEMENT_WINDOW)) : date(from);
        Optional<ChannelId> provider = channel == null ? Optional.empty() : ChannelId.fromPath(channel);
        if (first.isEmpty() || last.isEmpty() || first.get().isAfter(last.get())
                || first.get().plusDays(MAX_DAYS).isBefore(last.get()) || (channel != null && provider.isEmpty())
                || Limits.check(limit).isPresent()) {
            return refused("from/to are yyyy-MM-dd at most " + MAX_DAYS + " days apart, channel is wxpay|alipay|stripe,"
                    + " limit is 1.." + Limits.MAX);
        }
        return runs.list(first.get(), last.get(), provider.orElse(null), merchantId, limit)
                .map(list -> ActionResult.done(list, list.size() + " runs"));
    }

    /** Newest first; {@code beforeId} pages back. */
    @OperatorAction.Performs(OperatorAction.STATEMENT_DISCREPANCIES)
    public Uni<ActionResult<List<Discrepancies.Discrepancy>>> discrepancies(DiscrepancyCriteria criteria, long beforeId,
                                                                            int limit) {
        Optional<DiscrepancyKind> kind = named(criteria.kind(), DiscrepancyKind.class);
        Optional<DiscrepancyState> state = named(criteria.state(), DiscrepancyState.class);
        Optional<ChannelId> provider = criteria.channel() == null ? Optional.empty() : ChannelId.fromPath(criteria.channel());
        Optional<LocalDate> day = criteria.billDate() == null ? Optional.empty() : date(criteria.billDate());
        if ((criteria.kind() != null && kind.isEmpty()) || (criteria.state() != null && state.isEmpty())
                || (criteria.channel() != null && provider.isEmpty()) || (criteria.billDate() != null && day.isEmpty())
                || Limits.check(limit).isPresent()) {
            return refused("kind is missing_here|not_registered|missing_at_provider|amount_differs|state_differs, state is"
                    + " waiting|open|repaired|resolved, channel is wxpay|alipay|stripe, billDate is yyyy-MM-dd, limit is"
                    + " 1.." + Limits.MAX);
        }
        return discrepancies.list(new Discrepancies.Filter(kind.orElse(null), state.orElse(null), provider.orElse(null),
                        day.orElse(null), criteria.runId()), beforeId, limit)
                .map(list -> ActionResult.done(list, list.size() + " discrepancies"));
    }

    @OperatorAction.Performs(OperatorAction.STATEMENT_RESOLVE)
    public Uni<ActionResult<Discrepancies.Discrepancy>> resolve(long id, String note, String actor) {
        if (note == null || note.isBlank()) {
            return refused("a resolution needs a note: what was found and done");
        }
        String target = "statement_discrepancies#" + id + ": " + note.strip();
        return audit.change(actor, AuditAction.STATEMENT_RESOLVE, target,
                        tx -> discrepancies.resolve(tx, id, note.strip(), actor))
                .flatMap(entry -> pool.withTransaction(tx -> discrepancies.find(tx, id)).map(found -> {
                    if (found.isEmpty()) {
                        return ActionResult.<Discrepancies.Discrepancy>notFound("no discrepancy #" + id);
                    }
                    if (entry.isEmpty()) {
                        return ActionResult.conflict("discrepancy #" + id + " is not open", found.get());
                    }
                    return ActionResult.done(found.get(), "resolved");
                }));
    }

    /** Enrols the date's run, or requeues it: the bill is fetched and compared again. Needs the merchant's API keys. */
    @OperatorAction.Performs(OperatorAction.STATEMENT_RERUN)
    public Uni<ActionResult<Rerun>> rerun(String merchantId, String channel, String billDate, String actor) {
        Optional<ChannelId> provider = channel == null ? Optional.empty() : ChannelId.fromPath(channel);
        Optional<LocalDate> day = billDate == null ? Optional.empty() : date(billDate);
        String merchant = OperatorDefaults.merchant(merchantId);
        if (provider.isEmpty() || day.isEmpty()) {
            return refused("channel is wxpay|alipay|stripe and billDate is yyyy-MM-dd");
        }
        if (providers.statements(provider.get(), merchant).isEmpty()) {
            return refused("merchant " + merchant + " has no API keys for " + provider.get().path());
        }
        String target = "statement_runs " + merchant + "/" + provider.get().path() + "/" + day.get();
        return audit.change(actor, AuditAction.STATEMENT_RERUN, target,
                        tx -> runs.rerun(tx, merchant, provider.get(), day.get()),
                        outcome -> outcome != StatementRuns.Rerun.ALREADY_PENDING)
                .map(audited -> {
                    Rerun rerun = new Rerun(audited.result(), audited.entry().orElse(0L));
                    return ActionResult.done(rerun, switch (rerun.outcome()) {
                        case ENROLLED -> "enrolled: the run starts within seconds";
                        case REQUEUED -> "queued again: the run starts within seconds";
                        case ALREADY_PENDING -> "already queued or running";
                    });
                });
    }

    /** A date as yyyy-MM-dd. */
    public static Optional<LocalDate> date(String text) {
        try {
            return Optional.of(LocalDate.parse(text.strip()));
        } catch (DateTimeParseException e) {
            return Optional.empty();
        }
    }

    private static <E extends Enum<E>> Optional<E> named(String text, Class<E> type) {
        if (text == null) {
            return Optional.empty();
        }
        try {
            return Optional.of(Enum.valueOf(type, text.strip().toUpperCase(Locale.ROOT)));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    private static <T> Uni<ActionResult<T>> refused(String reason) {
        return Uni.createFrom().item(ActionResult.refused(reason));
    }
}
