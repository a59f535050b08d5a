package io.paycallback.console;

import io.paycallback.api.auth.Roles;
import io.paycallback.config.PayCallbackConfig;
import io.paycallback.ops.StatementActions;
import io.paycallback.provider.ProviderClients;
import io.paycallback.statement.Discrepancies;
import io.paycallback.statement.DiscrepancyKind;
import io.paycallback.statement.DiscrepancyState;
import io.paycallback.statement.StatementRuns;
import io.paycallback.statement.bill.BillTotals;
import io.paycallback.trade.ChannelId;
import io.quarkus.qute.CheckedTemplate;
import io.quarkus.qute.TemplateInstance;
import io.quarkus.security.identity.SecurityIdentity;
import io.quarkus.vertx.http.runtime.security.annotation.HttpAuthenticationMechanism;
import io.smallrye.mutiny.Uni;
import jakarta.annotation.security.RolesAllowed;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.FormParam;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;

import java.math.BigDecimal;
import java.time.Clock;
import java.time.LocalDate;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The console's Statements page: runs per day and provider with both sides' totals and a clear state, discrepancies
 * with filters, resolving one with a note and running a date again, through the same audited actions as the API.
 */
@Path(ConsoleSessions.PATH + "/statements")
@Produces(MediaType.TEXT_HTML)
@RolesAllowed(Roles.OPERATOR)
@HttpAuthenticationMechanism(ConsoleSessionMechanism.SCHEME)
@ConsoleGuard.Guarded
public class StatementConsole {

    private static final int DAYS = 14;
    private static final int LIST_LIMIT = 200;

    @CheckedTemplate(basePath = "console")
    static class Templates {
        static native TemplateInstance statements(ConsoleViews.Page page, Filter filter, List<RunLine> runs,
                                                  List<DiscrepancyLine> discrepancies);
    }

    /** The filter as the form shows it back. */
    public record Filter(String kind, String state, String channel, String date) {

        public List<String> getKinds() {
            return names(DiscrepancyKind.values());
        }

        public List<String> getStates() {
            return names(DiscrepancyState.values());
        }

        public List<String> getChannels() {
            return java.util.Arrays.stream(ChannelId.values()).map(ChannelId::path).toList();
        }

        private static List<String> names(Enum<?>[] values) {
            return java.util.Arrays.stream(values).map(value -> value.name().toLowerCase(Locale.ROOT)).toList();
        }
    }

    /** A run as a line of the page; totals as "count / sum". */
    public record RunLine(String date, String channel, String merchantId, String state, boolean healthy,
                          String billPayments, String ourPayments, String billRefunds, String ourRefunds,
                          String lines, int tries, String lastError, String digest) {

        static RunLine of(StatementRuns.Run run) {
            return new RunLine(run.billDate().toString(), run.channel().path(), run.merchantId(), run.state().name(),
                    run.state() == io.paycallback.statement.RunState.MATCHED, payments(run.bill()), payments(run.ours()),
                    refunds(run.bill()), refunds(run.ours()), run.linesCompared() == null ? "" : run.linesCompared().toString(),
                    run.tries(), run.lastError() == null ? "" : run.lastError(),
                    run.fileDigest() == null ? "" : run.fileDigest());
        }

        private static String payments(BillTotals totals) {
            return totals == null ? "" : totals.paymentCount() + " / " + totals.paymentSum().toPlainString();
        }

        private static String refunds(BillTotals totals) {
            return totals == null ? "" : totals.refundCount() + " / " + totals.refundSum().toPlainString();
        }
    }

    /** A discrepancy as a line of the page: both sides as "amount currency state". */
    public record DiscrepancyLine(long id, String date, String channel, String kind, String item, String ident,
                                  String outTradeNo, String bill, String ours, String state, boolean resolvable,
                                  String note, String resolvedBy) {

        static DiscrepancyLine of(Discrepancies.Discrepancy d) {
            return new DiscrepancyLine(d.id(), d.billDate().toString(), d.channel().path(),
                    d.kind().name().toLowerCase(Locale.ROOT), d.item().name().toLowerCase(Locale.ROOT), d.ident(),
                    d.outTradeNo() == null ? "" : d.outTradeNo(), side(d.billAmount(), d.billCurrency(), d.billState()),
                    side(d.ourAmount(), d.ourCurrency(), d.ourState()), d.state().name().toLowerCase(Locale.ROOT),
                    d.state() == DiscrepancyState.OPEN || d.state() == DiscrepancyState.WAITING,
                    d.note() == null ? "" : d.note(), d.resolvedBy() == null ? "" : d.resolvedBy());
        }

        private static String side(BigDecimal amount, String currency, String state) {
            if (amount == null && state == null) {
                return "—";
            }
            return (amount == null ? "?" : amount.toPlainString()) + " " + (currency == null ? "" : currency) + " "
                    + (state == null ? "" : state);
        }
    }

    @Inject
    SecurityIdentity identity;
    @Inject
    StatementRuns runs;
    @Inject
    Discrepancies discrepancies;
    @Inject
    StatementActions actions;
    @Inject
    ProviderClients providers;
    @Inject
    Clock clock;

    @GET
    public Uni<TemplateInstance> page(@QueryParam("kind") String kind, @QueryParam("state") String state,
                                      @QueryParam("channel") String channel, @QueryParam("date") String date) {
        Optional<DiscrepancyKind> kindFilter = parse(kind, DiscrepancyKind.class);
        Optional<DiscrepancyState> stateFilter = state == null ? Optional.of(DiscrepancyState.OPEN)
                : parse(state, DiscrepancyState.class);
        Optional<ChannelId> provider = blank(channel) ? Optional.empty() : ChannelId.fromPath(channel);
        Optional<LocalDate> day = date(date);
        Filter shown = new Filter(kindFilter.map(k -> k.name().toLowerCase(Locale.ROOT)).orElse(""),
                stateFilter.map(s -> s.name().toLowerCase(Locale.ROOT)).orElse(""), provider.map(ChannelId::path).orElse(""),
                day.map(LocalDate::toString).orElse(""));
        LocalDate today = LocalDate.now(clock);
        return runs.list(today.minusDays(DAYS), today, provider.orElse(null), null, LIST_LIMIT)
                .flatMap(runList -> discrepancies.list(new Discrepancies.Filter(kindFilter.orElse(null),
                                stateFilter.orElse(null), provider.orElse(null), day.orElse(null), null), Long.MAX_VALUE, LIST_LIMIT)
                        .map(found -> Templates.statements(page(), shown, runList.stream().map(RunLine::of).toList(),
                                found.stream().map(DiscrepancyLine::of).toList())));
    }

    @POST
    @Path("discrepancies/{id}/resolve")
    @Consumes(MediaType.APPLICATION_FORM_URLENCODED)
    public Uni<TemplateInstance> resolve(@PathParam("id") long id, @FormParam("note") String note) {
        if (blank(note)) {
            return done(false, "a resolution needs a note: what was found and done");
        }
        return actions.resolve(id, note.strip(), identity.getPrincipal().getName()).map(resolution -> ConsoleResource.Templates.done(
                resolution instanceof StatementActions.Resolution.Resolved
                        ? new ConsoleViews.Done(true, "resolved")
                        : new ConsoleViews.Done(false, "not open (any more)")));
    }

    @POST
    @Path("runs")
    @Consumes(MediaType.APPLICATION_FORM_URLENCODED)
    public Uni<TemplateInstance> rerun(@FormParam("channel") String channel, @FormParam("billDate") String billDate,
                                       @FormParam("merchantId") String merchantId) {
        Optional<ChannelId> provider = blank(channel) ? Optional.empty() : ChannelId.fromPath(channel);
        Optional<LocalDate> day = date(billDate);
        String merchant = blank(merchantId) ? PayCallbackConfig.DEFAULT_MERCHANT : merchantId.strip();
        if (provider.isEmpty() || day.isEmpty()) {
            return done(false, "pick a provider and a date");
        }
        if (providers.statements(provider.get(), merchant).isEmpty()) {
            return done(false, "merchant " + merchant + " has no API keys for " + provider.get().path());
        }
        return actions.rerun(merchant, provider.get(), day.get(), identity.getPrincipal().getName())
                .map(rerun -> ConsoleResource.Templates.done(new ConsoleViews.Done(true, switch (rerun.outcome()) {
                    case ENROLLED -> "enrolled: the run starts within seconds";
                    case REQUEUED -> "queued again: the run starts within seconds";
                    case ALREADY_PENDING -> "already queued or running";
                })));
    }

    private ConsoleViews.Page page() {
        ConsoleSessions.Session session = identity.getAttribute(ConsoleSessionIdentityProvider.SESSION);
        return new ConsoleViews.Page(session.operator(), session.csrf(), "statements", ConsoleResource.HTMX);
    }

    private static Uni<TemplateInstance> done(boolean ok, String message) {
        return Uni.createFrom().item(ConsoleResource.Templates.done(new ConsoleViews.Done(ok, message)));
    }

    private static <E extends Enum<E>> Optional<E> parse(String value, Class<E> type) {
        if (blank(value)) {
            return Optional.empty();
        }
        try {
            return Optional.of(Enum.valueOf(type, value.strip().toUpperCase(Locale.ROOT)));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    private static Optional<LocalDate> date(String value) {
        if (blank(value)) {
            return Optional.empty();
        }
        try {
            return Optional.of(LocalDate.parse(value.strip()));
        } catch (DateTimeParseException e) {
            return Optional.empty();
        }
    }

    private static boolean blank(String value) {
        return value == null || value.isBlank();
    }
}
