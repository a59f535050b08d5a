package io.paycallback.delivery;

import io.paycallback.lease.RowLease;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * One try of an outbox event (an HTTP request or a Kafka record), as the relay saw it, before it is written to {@code delivery_attempts}. The
 * response body is cut to {@value #BODY_LIMIT} bytes at a UTF-8 character boundary; it is stored, never logged.
 *
 * @param tryNumber      the row's failed tries before this one, plus one
 * @param httpStatus     null when no answer came, and for a Kafka record
 * @param error          why no answer came; null when one did
 * @param startedNanos   {@link System#nanoTime()} when the try started, so the row's time is the start of the try
 * @param responseLength the full answer's length in bytes; null when no answer came
 * @param responseBody   the answer's first bytes; null when no answer came
 */
public record DeliveryAttempt(long outboxId, int tryNumber, String destination, DeliveryResult result,
                              Integer httpStatus, String error, long startedNanos, long latencyMillis,
                              Integer responseLength, byte[] responseBody) {

    public static final int BODY_LIMIT = 512;
    static final int ERROR_LIMIT = 512;

    static DeliveryAttempt answered(RowLease lease, String destination, int status, byte[] body, long startedNanos) {
        byte[] answer = body == null ? new byte[0] : body;
        return new DeliveryAttempt(lease.id(), lease.failures() + 1, destination,
                status / 100 == 2 ? DeliveryResult.DELIVERED : DeliveryResult.REFUSED, status, null, startedNanos,
                elapsedMillis(startedNanos), answer.length, truncate(answer));
    }

    /**
     * A record the brokers acknowledged: no HTTP status, and where it landed as the answer.
     *
     * @param where its partition and offset
     */
    static DeliveryAttempt acknowledged(RowLease lease, String destination, String where, long startedNanos) {
        byte[] answer = where.getBytes(StandardCharsets.UTF_8);
        return new DeliveryAttempt(lease.id(), lease.failures() + 1, destination, DeliveryResult.DELIVERED, null, null,
                startedNanos, elapsedMillis(startedNanos), answer.length, truncate(answer));
    }

    static DeliveryAttempt failed(RowLease lease, String destination, String error, long startedNanos) {
        String text = error.length() > ERROR_LIMIT ? error.substring(0, ERROR_LIMIT) : error;
        return new DeliveryAttempt(lease.id(), lease.failures() + 1, destination, DeliveryResult.FAILED, null, text,
                startedNanos, elapsedMillis(startedNanos), null, null);
    }

    /**
     * How long ago the try started: its row is written a moment after the try ended, and measuring back from the
     * statement's {@code NOW(3)} puts the recorded time at the try's start.
     */
    long microsSinceStart() {
        return (System.nanoTime() - startedNanos) / 1_000;
    }

    public boolean delivered() {
        return result == DeliveryResult.DELIVERED;
    }

    /** For the outbox row's last_error and the log: never the body, which may hold anything the destination sent. */
    public String describe() {
        return switch (result) {
            case DELIVERED -> httpStatus == null ? destination + " acknowledged it at "
                    + new String(responseBody, StandardCharsets.UTF_8) : destination + " took it with HTTP " + httpStatus;
            case REFUSED -> destination + " answered HTTP " + httpStatus;
            case FAILED -> error;
            case UNKNOWN -> throw new IllegalStateException("a try made here has a result this build knows");
        };
    }

    static byte[] truncate(byte[] body) {
        if (body.length <= BODY_LIMIT) {
            return body;
        }
        int end = BODY_LIMIT;
        // body[end] is the first byte left out; if it continues a character, that character is cut: leave it out whole.
        while (end > 0 && (body[end] & 0xC0) == 0x80) {
            end--;
        }
        return Arrays.copyOf(body, end);
    }

    private static long elapsedMillis(long startedNanos) {
        return (System.nanoTime() - startedNanos) / 1_000_000;
    }
}
