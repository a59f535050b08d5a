package io.paycallback.api;

import io.paycallback.inbox.CallbackLog;
import io.paycallback.lease.LeasedTable;
import io.paycallback.lease.RowStatus;
import io.paycallback.ops.DeadLetters;
import io.paycallback.ops.Requeues;
import io.paycallback.outbox.Outbox;
import io.paycallback.trade.ChannelId;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

import java.time.LocalDateTime;

/**
 * The admin API's own request and answer records; rows (callbacks, quarantine, outbox events, audit entries) are
 * answered as the records their repositories read them into.
 */
public final class AdminViews {

    private AdminViews() {
    }

    /** A row put back to pending (replay, requeue). */
    @Schema(name = "Queued")
    /** @param result {@code stored} or {@code ignored} */
    public record QuarantineReplayed(long id, String result, String detail) {
    }

    public record Queued(long id, RowStatus status) {
        static Queued pending(long id) {
            return new Queued(id, RowStatus.PENDING);
        }
    }

    /**
     * A bulk requeue. Without a token it is a dry run of the filter (always, whatever {@code dryRun} says); with the
     * dry run's token and {@code "dryRun": false} it requeues that dry run's rows, and the filter fields must be absent.
     */
    @Schema(name = "BulkRequeueRequest")
    public record BulkRequeueRequest(
            @Schema(description = "payment, refund or outbox", required = true) String table,
            @Schema(description = "died at or after (database clock, as the API shows times)") LocalDateTime from,
            @Schema(description = "died before") LocalDateTime to,
            @Schema(description = "callbacks only: wxpay, alipay, stripe") String channel,
            String merchantId,
            @Schema(description = "outbox only") String destination,
            @Schema(description = "substring of lastError") String errorContains,
            @Schema(description = "true unless told otherwise", defaultValue = "true") Boolean dryRun,
            @Schema(description = "from the dry run's answer") String token) {

        /** @throws IllegalArgumentException with the operator's mistake, when the filter cannot mean exactly one thing */
        public DeadLetters.Filter toFilter() {
            LeasedTable leased = "outbox".equals(table) ? Outbox.TABLE
                    : CallbackLog.fromApiName(table == null ? "" : table).map(CallbackLog::leased)
                    .orElseThrow(() -> new IllegalArgumentException("table is payment, refund or outbox"));
            if (channel != null && ChannelId.fromPath(channel).isEmpty()) {
                throw new IllegalArgumentException("channel is wxpay, alipay or stripe");
            }
            if (errorContains != null && (errorContains.isEmpty() || errorContains.length() > 200)) {
                throw new IllegalArgumentException("errorContains is 1..200 characters");
            }
            return new DeadLetters.Filter(leased, from, to, channel, merchantId, destination, errorContains);
        }

        boolean hasFilter() {
            return table != null || from != null || to != null || channel != null || merchantId != null
                    || destination != null || errorContains != null;
        }
    }

    @Schema(name = "BulkRequeueDryRun")
    public record DryRun(boolean dryRun, String table, long matched, Long firstId, Long lastId, LocalDateTime diedBefore,
                         @Schema(description = "send it back with \"dryRun\": false to requeue exactly these rows") String token) {

        static DryRun of(DeadLetters.Selection selection, String token) {
            return new DryRun(true, selection.filter().table().label(), selection.matched(),
                    selection.matched() == 0 ? null : selection.firstId(), selection.matched() == 0 ? null : selection.lastId(),
                    selection.cutOff(), token);
        }
    }

    @Schema(name = "BulkRequeueApplied")
    public record Applied(boolean dryRun, String table, long matched, long requeued, int batches, long auditId) {

        static Applied of(DeadLetters.Selection selection, Requeues.Applied applied) {
            return new Applied(false, selection.filter().table().label(), selection.matched(), applied.requeued(),
                    applied.batches(), applied.auditId());
        }
    }

}
