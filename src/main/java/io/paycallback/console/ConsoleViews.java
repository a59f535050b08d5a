package io.paycallback.console;

import io.paycallback.delivery.DestinationResults;
import io.paycallback.delivery.DestinationState;
import io.paycallback.delivery.DestinationView;
import io.paycallback.delivery.FailureReason;
import io.paycallback.delivery.RecordedAttempt;
import io.paycallback.inbox.CallbackRow;
import io.paycallback.inbox.CallbackTable;
import io.paycallback.inbox.QuarantinedCallback;
import io.paycallback.lease.RowStatus;
import io.paycallback.ops.Attention;
import io.paycallback.ops.AuditEntry;
import io.paycallback.ops.DeadLetters;
import io.paycallback.ops.OperationsOverview;
import io.paycallback.ops.OrderTimeline;
import io.paycallback.ops.StatusCounts;
import io.paycallback.order.Order;
import io.paycallback.order.OrderStatus;
import io.paycallback.order.Refunds;
import io.paycallback.outbox.OutboxEvent;
import io.paycallback.registry.OwnerKind;
import io.paycallback.registry.OwnerView;
import io.paycallback.registry.RegistryStore;
import io.paycallback.registry.Source;
import io.paycallback.statement.Discrepancies;
import io.paycallback.statement.DiscrepancyKind;
import io.paycallback.statement.DiscrepancyState;
import io.paycallback.statement.RunState;
import io.paycallback.statement.StatementRuns;
import io.paycallback.statement.bill.BillTotals;
import io.paycallback.trade.ChannelId;
import io.paycallback.trade.ChannelTradeNo;
import io.paycallback.trend.Trends;

import java.math.BigDecimal;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * What the console's templates show, as text already formatted: the one place where rows become the console's lines,
 * so the templates hold no logic and every value reaches them as a string that Qute escapes.
 */
public final class ConsoleViews {

    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS");

    private ConsoleViews() {
    }

    /** What every page's frame needs: who is signed in, the CSRF token htmx sends back, the current section. */
    /** @param acts whether the operator may act; a viewer's pages show no action (the server refuses them anyway) */
    public record Page(String operator, String csrf, String section, String htmx, boolean acts) {
    }

    public record TableCounts(String table, String pending, String done, String dead, String compacted,
                              String stalePending) {
    }

    public record Overview(List<AttentionLine> attention, List<TableCounts> tables, String stalePendingTotal,
                           boolean backlogHealthy,
                           String deadLettersTotal, String quarantined, String gateRejections, String storeFailures,
                           String outcomesSince) {
    }

    /**
     * A stored callback, payment or refund: {@code key} is the provider's trade number or the refund number;
     * {@code archived} when housekeeping moved it to the archive, where nothing acts on it any more.
     */
    public record CallbackLine(String kind, long id, String merchantId, String channel, String key, String outTradeNo,
                               String state, String amount, String currency, String status, boolean dead,
                               int retryCount, String nextRetryAt, String lastError, long bodyLength, String createdAt,
                               String updatedAt, boolean archived) {

        static CallbackLine of(OrderTimeline.Callback line) {
            return of(line.row(), line.archived());
        }

        static CallbackLine of(CallbackRow row, boolean archived) {
            if (row instanceof CallbackRow.Payment p) {
                return new CallbackLine(CallbackTable.PAYMENT.apiName(), p.id(), p.merchantId(), p.channel(), p.channelTradeNo(),
                        p.outTradeNo(), p.tradeState(), money(p.amount()), p.currency(), p.status().label(),
                        p.status() == RowStatus.DEAD, p.retryCount(), time(p.nextRetryAt()), text(p.lastError()),
                        p.bodyLength(), time(p.createdAt()), time(p.updatedAt()), archived);
            }
            CallbackRow.Refund r = (CallbackRow.Refund) row;
            return new CallbackLine(CallbackTable.REFUND.apiName(), r.id(), r.merchantId(), r.channel(), r.refundNo(),
                    text(r.outTradeNo()), r.refundState(), money(r.amount()), r.currency(), r.status().label(),
                    r.status() == RowStatus.DEAD, r.retryCount(), time(r.nextRetryAt()), text(r.lastError()),
                    r.bodyLength(), time(r.createdAt()), time(r.updatedAt()), archived);
        }
    }

    public record AttemptLine(int tryNumber, String at, String result, String httpStatus, FailureReason error, long latencyMs,
                              String response) {

        static AttemptLine of(RecordedAttempt attempt) {
            String response = attempt.responseBody() == null ? ""
                    : attempt.responseBody() + (attempt.responseTruncated() ? " …(" + attempt.responseLength() + " bytes)" : "");
            return new AttemptLine(attempt.tryNumber(), time(attempt.attemptedAt()), attempt.result().label(),
                    attempt.httpStatus() == null ? "" : attempt.httpStatus().toString(), FailureReason.read(attempt.error()),
                    attempt.latencyMs(), response);
        }
    }

    /** An outbox event with its delivery attempts; {@code archived} when housekeeping moved them to the archive. */
    public record EventLine(long id, String type, String destination, String source, String status, boolean dead,
                            int retryCount, String nextRetryAt, String lastError, String createdAt, String payload,
                            List<AttemptLine> attempts, boolean archived) {

        static EventLine of(OutboxEvent event, List<RecordedAttempt> attempts, boolean archived) {
            return new EventLine(event.id(), event.type(), event.destination(), event.source(), event.status().label(),
                    event.status() == RowStatus.DEAD, event.retryCount(), time(event.nextRetryAt()),
                    text(event.lastError()), time(event.createdAt()), event.payload(),
                    attempts.stream().map(AttemptLine::of).toList(), archived);
        }
    }

    /** A dead row of any table, as much as every table has. */
    public record DeadLine(String table, long id, String merchantId, int tries, String lastError, String diedAt) {

        static DeadLine of(String table, DeadLetters.DeadLetter dead) {
            return new DeadLine(table, dead.id(), text(dead.merchantId()), dead.tries(), text(dead.lastError()),
                    time(dead.diedAt()));
        }
    }

    public record RefundLine(String channel, String refundNo, String channelRefundId, String amount,
                             String refundedTotal, String currency, String status, String reason, String createdAt,
                             String updatedAt) {

        static RefundLine of(Refunds.Listed refund) {
            return new RefundLine(refund.channel(), refund.refundNo(), text(refund.channelRefundId()),
                    money(refund.amount()), money(refund.refundedTotal()), refund.currency(), refund.status().name(),
                    refund.reason(), time(refund.createdAt()), time(refund.updatedAt()));
        }
    }

    /** One state change of the order, read off its timestamps and its refunds. */
    public record Change(String at, String what) {
    }

    public record OrderLine(String merchantId, String outTradeNo, String status, String amount, String currency,
                            String refundedAmount, String channel, String channelTradeNo) {

        static OrderLine of(Order order) {
            return new OrderLine(order.merchantId(), order.outTradeNo().value(), order.storedStatus(),
                    money(order.amount().amount()), order.amount().currency(), money(order.refunded().amount()),
                    text(order.channel()), text(ChannelTradeNo.valueOrNull(order.channelTradeNo())));
        }
    }

    /**
     * An order's whole story, archived rows included among the live ones; {@code order} is null when no order has this
     * number (callbacks may still exist). {@code closable} while the order is PENDING.
     */
    public record Timeline(String merchantId, String outTradeNo, OrderLine order, boolean closable, List<Change> changes,
                           List<CallbackLine> callbacks, List<RefundLine> refunds, List<EventLine> events) {

        static Timeline of(OrderTimeline.Timeline story) {
            return new Timeline(story.merchantId(), story.outTradeNo(),
                    story.order() == null ? null : OrderLine.of(story.order()),
                    story.order() != null && story.order().status() == OrderStatus.PENDING,
                    story.changes().stream().map(change -> new Change(time(change.at()), change.what())).toList(),
                    story.callbacks().stream().map(CallbackLine::of).toList(),
                    story.refunds().stream().map(RefundLine::of).toList(),
                    story.events().stream().map(line -> EventLine.of(line.event(), line.attempts(), line.archived()))
                            .toList());
        }
    }

    public record QuarantineLine(long id, String merchantId, String channel, String kind, String reason, String bodySha256,
                                 int bodyLength, String createdAt) {

        static QuarantineLine of(QuarantinedCallback row) {
            return new QuarantineLine(row.id(), row.merchantId(), row.channel(), row.kind(), row.reason(), row.bodySha256(),
                    row.bodyLength(), time(row.createdAt()));
        }
    }

    public record AuditLine(long id, String at, String actor, String action, String target, long rows) {

        static AuditLine of(AuditEntry entry) {
            return new AuditLine(entry.id(), time(entry.at()), entry.actor(), entry.action().label(), entry.target(),
                    entry.rows());
        }
    }

    /** One destination: its circuit, backlog and last delivery; which of disable, enable and probe apply. */
    public record DestinationLine(String name, String endpoint, String state, boolean healthy, String since, FailureReason reason,
                                  String nextProbeAt, String lastDeliveredAt, String failures, long backlog, long parked,
                                  String oldestPendingAt, String nextDueAt, boolean signed, boolean disabled,
                                  boolean probeable) {

        static DestinationLine of(DestinationView view) {
            return new DestinationLine(view.name(), view.endpoint(), view.state().label(), view.state().delivers(),
                    time(view.since()), FailureReason.read(view.reason()), time(view.nextProbeAt()),
                    time(view.lastDeliveredAt()), view.triesInWindow() == 0 ? ""
                    : Math.round(view.failureRate() * 100) + "% of " + view.triesInWindow(), view.backlog(),
                    view.parked(), time(view.oldestPendingAt()), time(view.nextDueAt()), view.signed(),
                    view.state() == DestinationState.DISABLED, !view.state().delivers());
        }
    }

    /** A replay's dry run, with what its button sends back to carry out exactly that plan. */
    public record ReplayPlan(String destination, String since, long upToId, long resent, long added, boolean any) {

        static ReplayPlan of(DestinationResults.ReplayPlan plan) {
            return new ReplayPlan(plan.destination(), plan.since().toString(), plan.upToId(), plan.resent(), plan.added(),
                    plan.resent() + plan.added() > 0);
        }
    }

    /** A dry run's answer, with the token that requeues exactly its rows. */
    public record DryRun(String table, long matched, String ids, String diedBefore, String token) {
    }

    /** What an action did, shown where its button was. */
    public record Done(boolean ok, String message) {
    }

    /** The charts of the last hours, drawn as SVG on the server, and the windows to choose from. */
    public record TrendCharts(int hours, List<Integer> windows, List<ChartView> charts) {

        static TrendCharts of(Trends.Picture picture) {
            return new TrendCharts(picture.window().hours(), Arrays.stream(Trends.Window.values())
                    .map(Trends.Window::hours).toList(), picture.charts().stream()
                    .map(chart -> new ChartView(chart.title(), chart.unit(), Charts.svg(chart, picture.from(), picture.to()),
                            Charts.legend(chart))).toList());
        }
    }

    /** One chart: its SVG and legend are markup made here with every text escaped, and rendered raw. */
    public record ChartView(String title, String unit, String svg, String legend) {
    }

    /** One thing that needs a person, and the page where it is fixed. */
    public record AttentionLine(String concern, String said, String link) {

        static AttentionLine of(Attention attention) {
            return new AttentionLine(attention.concern().label(), attention.said(), switch (attention.concern()) {
                case DATABASE_UNREACHABLE -> ConsoleSessions.PATH;
                case DESTINATION_DISABLED, DESTINATION_OPEN -> ConsoleSessions.PATH + "/destinations#destination-"
                        + attention.subject();
                case CERTIFICATES_FAILING, CERTIFICATES_EXPIRING -> ConsoleSessions.PATH + "/merchants";
                case STALE_PENDING -> ConsoleSessions.PATH + "#status-counts";
                case DEAD_LETTERS -> ConsoleSessions.PATH + "/dead?table=" + attention.subject();
                case STATEMENT_DIFFERENCES -> ConsoleSessions.PATH + "/statements";
                case QUARANTINE -> ConsoleSessions.PATH + "/quarantine";
            });
        }
    }

    static Overview overview(OperationsOverview.Overview overview) {
        List<TableCounts> tables = overview.tables().stream().map(table -> new TableCounts(table.table(),
                count(table.byStatus().get(RowStatus.PENDING)), count(table.byStatus().get(RowStatus.DONE)),
                count(table.byStatus().get(RowStatus.DEAD)), count(table.byStatus().get(RowStatus.COMPACTED)),
                Long.toString(table.stalePending()))).toList();
        return new Overview(overview.attention().stream().map(AttentionLine::of).toList(), tables,
                Long.toString(overview.stalePending()), overview.healthy(),
                Long.toString(overview.deadLetters()), Long.toString(overview.quarantined()),
                Long.toString(overview.lastHour().gateRejections()), Long.toString(overview.lastHour().storeFailures()),
                overview.lastHour().since().toString());
    }

    /** The statements page's filter as the form shows it back. */
    public record StatementFilter(String kind, String state, String channel, String date) {

        public List<String> getKinds() {
            return names(DiscrepancyKind.values());
        }

        public List<String> getStates() {
            return names(DiscrepancyState.values());
        }

        public List<String> getChannels() {
            return Arrays.stream(ChannelId.values()).map(ChannelId::path).toList();
        }

        private static List<String> names(Enum<?>[] values) {
            return Arrays.stream(values).map(value -> value.name().toLowerCase(Locale.ROOT))
                    .filter(name -> !name.equals("unknown")).toList();
        }
    }

    /** A statement run as a line of the page; totals as "count / sum". */
    public record RunLine(String date, String channel, String merchantId, String state, boolean healthy,
                          String billPayments, String ourPayments, String billRefunds, String ourRefunds,
                          String lines, int tries, String lastError, String digest) {

        static RunLine of(StatementRuns.Run run) {
            return new RunLine(run.billDate().toString(), run.channel().path(), run.merchantId(), run.state().name(),
                    run.state() == RunState.MATCHED, payments(run.bill()), payments(run.ours()),
                    refunds(run.bill()), refunds(run.ours()), run.linesCompared() == null ? "" : run.linesCompared().toString(),
                    run.tries(), text(run.lastError()), text(run.fileDigest()));
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
                    text(d.outTradeNo()), side(d.billAmount(), d.billCurrency(), d.billState()),
                    side(d.ourAmount(), d.ourCurrency(), d.ourState()), d.state().name().toLowerCase(Locale.ROOT),
                    d.state() == DiscrepancyState.OPEN || d.state() == DiscrepancyState.WAITING,
                    text(d.note()), text(d.resolvedBy()));
        }

        private static String side(BigDecimal amount, String currency, String state) {
            if (amount == null && state == null) {
                return "—";
            }
            return (amount == null ? "?" : amount.toPlainString()) + " " + text(currency) + " " + text(state);
        }
    }

    /**
     * A merchant or platform on the Merchants pages; {@code editable} unless properties declare it, {@code path} is
     * its segment of the console's URLs ({@code merchant/shop-42}).
     */
    public record OwnerLine(String id, String kind, String path, boolean enabled, String source, boolean editable,
                            List<AccountLine> accounts) {

        static OwnerLine of(OwnerView owner) {
            return new OwnerLine(owner.id(), owner.kind().label(), owner.kind().label() + "/" + ConsoleFormat.url(owner.id()),
                    owner.enabled(), owner.source().label(), owner.source() == Source.DATABASE,
                    owner.accounts().stream().map(AccountLine::of).toList());
        }
    }

    /**
     * One provider account: its public values as {@code name=value} text, its keys by fingerprint; {@code rotating}
     * when it holds keys that are added and retired one by one (WeChat Pay's public keys, Stripe's webhook secrets).
     */
    public record AccountLine(String provider, String mode, String platform, String subId, String settings,
                              List<KeyLine> keys, boolean rotating) {

        static AccountLine of(OwnerView.AccountView account) {
            boolean keyed = !"sub-merchant".equals(account.mode());
            return new AccountLine(account.provider(), account.mode(), text(account.platform()), text(account.subId()),
                    account.settings().entrySet().stream().map(e -> e.getKey() + "=" + e.getValue())
                            .collect(Collectors.joining(", ")),
                    account.keys().stream().map(KeyLine::of).toList(),
                    keyed && !ChannelId.ALIPAY.path().equals(account.provider()));
        }
    }

    /** A key by fingerprint; {@code retirable} while a rotating key (one with a serial) is live. */
    public record KeyLine(String name, String serial, String fingerprint, String retireAt, boolean live,
                          boolean retirable) {

        static KeyLine of(OwnerView.KeyView key) {
            return new KeyLine(key.name(), text(key.serial()), key.fingerprint(),
                    key.retireAt() == null ? "" : key.retireAt().toString(), key.live(), key.serial() != null && key.live());
        }
    }

    /**
     * What the account forms of one provider show before anything is typed: the account's public values, never a
     * secret. {@code keyed} when the saved account holds this provider's keys (a merchant's direct account or a
     * platform's), {@code sub} when it is a sub-merchant's: then its secrets left empty are kept.
     */
    public record AccountForm(String provider, boolean saved, boolean keyed, boolean sub, String platform, String subId,
                              String mchid, String merchantSerial, String appId) {

        static List<AccountForm> of(OwnerView owner) {
            Map<String, OwnerView.AccountView> saved = owner.accounts().stream()
                    .collect(Collectors.toMap(OwnerView.AccountView::provider, account -> account));
            return Arrays.stream(ChannelId.values()).map(ChannelId::path).map(provider -> {
                Optional<OwnerView.AccountView> account = Optional.ofNullable(saved.get(provider));
                Map<String, String> settings = account.map(OwnerView.AccountView::settings).orElse(Map.of());
                boolean sub = account.map(a -> "sub-merchant".equals(a.mode())).orElse(false);
                return new AccountForm(provider, account.isPresent(), account.isPresent() && !sub, sub,
                        account.map(a -> text(a.platform())).orElse(""), account.map(a -> text(a.subId())).orElse(""),
                        settings.getOrDefault("mchid", ""), settings.getOrDefault("merchantSerial", ""),
                        settings.getOrDefault("appId", ""));
            }).toList();
        }
    }

    /** One merchant's or platform's page: itself, its account forms, and its changes newest first. */
    public record OwnerPage(OwnerLine owner, boolean merchant, List<AccountForm> forms, List<ChangeLine> changes) {

        static OwnerPage of(OwnerView owner, List<RegistryStore.Change> changes) {
            return new OwnerPage(OwnerLine.of(owner), owner.kind() == OwnerKind.MERCHANT, AccountForm.of(owner),
                    changes.stream().map(ChangeLine::of).toList());
        }
    }

    /** A registry change: who, what, and the account before and after, secrets by fingerprint. */
    public record ChangeLine(long id, String at, String actor, String action, String provider, String before,
                             String after) {

        static ChangeLine of(RegistryStore.Change change) {
            return new ChangeLine(change.id(), time(change.at()), change.actor(), change.action(), text(change.provider()),
                    text(change.before()), text(change.after()));
        }
    }


    static String time(LocalDateTime time) {
        return time == null ? "" : TIME.format(time);
    }

    private static String count(StatusCounts.Count count) {
        return count.capped() ? "≥ " + count.rows() : Long.toString(count.rows());
    }

    private static String money(BigDecimal amount) {
        return amount == null ? "" : amount.toPlainString();
    }

    private static String text(String value) {
        return value == null ? "" : value;
    }
}
