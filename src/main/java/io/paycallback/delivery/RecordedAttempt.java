package io.paycallback.delivery;

import io.quarkus.runtime.annotations.RegisterForReflection;

import java.time.LocalDateTime;

/**
 * One stored delivery attempt, as the admin API shows it.
 *
 * @param id                null for the try that delivered the event: that one is kept on the event's own row
 * @param attemptedAt       when the try started (the database's clock, like every time in the schema)
 * @param responseBody      the answer's first {@value DeliveryAttempt#BODY_LIMIT} bytes as text; null without answer
 * @param responseTruncated whether the answer was longer than what is kept
 */
@RegisterForReflection
public record RecordedAttempt(Long id, long eventId, int tryNumber, LocalDateTime attemptedAt, String destination,
                              DeliveryResult result, Integer httpStatus, String error, long latencyMs,
                              Integer responseLength, String responseBody, boolean responseTruncated) {
}
