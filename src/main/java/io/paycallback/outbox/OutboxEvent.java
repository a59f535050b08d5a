package io.paycallback.outbox;

import io.paycallback.lease.RowStatus;

import java.time.LocalDateTime;

/** One stored downstream event for one destination, as an operator reads it. */
public record OutboxEvent(long id, String source, String type, String destination, RowStatus status, int retryCount,
                          LocalDateTime nextRetryAt, String lastError, String payload, LocalDateTime createdAt) {
}
