package io.paycallback.api;

import io.paycallback.delivery.RecordedAttempt;
import io.paycallback.inbox.CallbackRow;
import io.paycallback.ops.OrderActions;
import io.paycallback.ops.OrderTimeline;
import io.paycallback.order.Refunds;
import io.paycallback.outbox.OutboxEvent;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

import java.math.BigDecimal;
import java.time.LocalDateTime;
import java.util.List;

/**
 * The admin API's own request and answer records; rows (callbacks, quarantine, outbox events, audit entries) are
 * answered as the records their repositories read them into. Amounts are decimal strings, never JSON numbers.
 */
public final class AdminViews {

    private AdminViews() {
    }

    /**
     * A bulk requeue. Without a token it is a dry run of the filter (always, whatever {@code dryRun} says); with the
     * dry run's token and {@code "dryRun": false} it requeues that dry run's rows, and the filter fields must be absent.
     */
    @Schema(name = "BulkRequeueRequest")
    public record BulkRequeueRequest(
            @Schema(description = "a dead-letter table: payment, refund, outbox, close-request, refund-submission, ..."
                    + " (GET /admin/dead-letters lists them)", required = true) String table,
            @Schema(description = "died at or after (database clock, as the API shows times)") LocalDateTime from,
            @Schema(description = "died before") LocalDateTime to,
            @Schema(description = "callbacks only: wxpay, alipay, stripe") String channel,
            String merchantId,
            @Schema(description = "outbox only") String destination,
            @Schema(description = "substring of lastError") String errorContains,
            @Schema(description = "true unless told otherwise", defaultValue = "true") Boolean dryRun,
            @Schema(description = "from the dry run's answer") String token) {

        boolean hasFilter() {
            return table != null || from != null || to != null || channel != null || merchantId != null
                    || destination != null || errorContains != null;
        }
    }

    /** A note for a person: what was found and done. */
    @Schema(name = "NoteRequest")
    public record NoteRequest(String note) {
    }

    @Schema(name = "OrderTimeline")
    public record Timeline(String merchantId, String outTradeNo,
                           @Schema(description = "null when no order has this number") OrderViews.OrderView order,
                           List<Change> changes, List<Callback> callbacks, List<Refund> refunds, List<Event> events) {

        static Timeline of(OrderTimeline.Timeline story) {
            return new Timeline(story.merchantId(), story.outTradeNo(),
                    story.order() == null ? null : OrderViews.OrderView.of(story.order()),
                    story.changes().stream().map(change -> new Change(change.at(), change.what())).toList(),
                    story.callbacks().stream().map(line -> new Callback(line.row(), line.archived())).toList(),
                    story.refunds().stream().map(Refund::of).toList(),
                    story.events().stream().map(line -> new Event(line.event(), line.attempts(), line.archived())).toList());
        }
    }

    /** What a search by any number of an order found, with the order's story when exactly one matched. */
    @Schema(name = "OrderSearch")
    public record Found(List<String> matches, Timeline timeline) {

        static Found of(OrderActions.Found found) {
            return new Found(found.matches(), found.timeline() == null ? null : Timeline.of(found.timeline()));
        }
    }

    public record Change(LocalDateTime at, String what) {
    }

    public record Callback(CallbackRow row, boolean archived) {
    }

    public record Event(OutboxEvent event, List<RecordedAttempt> attempts, boolean archived) {
    }

    @Schema(name = "Refund")
    public record Refund(String channel, String refundNo, String channelRefundId, String amount, String refundedTotal,
                         String currency, String status, String reason, LocalDateTime createdAt,
                         LocalDateTime updatedAt) {

        static Refund of(Refunds.Listed refund) {
            return new Refund(refund.channel(), refund.refundNo(), refund.channelRefundId(), plain(refund.amount()),
                    plain(refund.refundedTotal()), refund.currency(), refund.status().name(), refund.reason(),
                    refund.createdAt(), refund.updatedAt());
        }

        private static String plain(BigDecimal amount) {
            return amount == null ? null : amount.toPlainString();
        }
    }
}
