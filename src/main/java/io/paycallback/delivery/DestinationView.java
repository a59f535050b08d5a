package io.paycallback.delivery;

import io.quarkus.runtime.annotations.RegisterForReflection;

import java.time.Instant;
import java.time.LocalDateTime;

/**
 * One destination as an operator sees it (the console's Destinations page, the admin API). Times are the database's
 * clock, like every time in the schema, except {@code previousSecretUntil}, which is the configuration's instant. No
 * secret, and of the URL only its scheme, host, port and path.
 *
 * @param since           when it entered its state; null before its first read
 * @param reason          why it is open or disabled; null when closed
 * @param nextProbeAt     when an open circuit sends its next probe; null otherwise
 * @param lastDeliveredAt when its most recently tried delivered event was delivered; null when none is in the hot table
 * @param triesInWindow   this instance's tries of it within the breaker's window
 * @param failureRate     the share of them that failed, 0 to 1
 * @param backlog         its pending events, parked ones included
 * @param parked          how many of them wait parked
 * @param oldestPendingAt when the oldest pending event was written; null without any
 * @param nextDueAt       the earliest next try of a pending event that is not parked; in the past, it is overdue
 * @param signed          whether its events carry Standard Webhooks signatures
 * @param rateLimit       events per second on each instance; null without a limit
 */
@RegisterForReflection
public record DestinationView(String name, String endpoint, DestinationState state, LocalDateTime since, String reason,
                              LocalDateTime nextProbeAt, LocalDateTime lastDeliveredAt, int triesInWindow,
                              double failureRate, long backlog, long parked, LocalDateTime oldestPendingAt,
                              LocalDateTime nextDueAt, boolean signed, Instant previousSecretUntil, int concurrency,
                              Double rateLimit) {
}
