package io.paycallback.delivery;

import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Optional;

/**
 * An HTTP {@code Retry-After} value (RFC 9110 §10.2.3) as a wait from now: delay-seconds, or an HTTP-date (the
 * IMF-fixdate form, {@code Sun, 06 Nov 1994 08:49:37 GMT}). A date in the past is no wait; anything else is ignored.
 */
final class RetryAfter {

    private RetryAfter() {
    }

    static Optional<Duration> parse(String value, Instant now) {
        if (value == null || value.isBlank()) {
            return Optional.empty();
        }
        String text = value.trim();
        if (text.chars().allMatch(Character::isDigit)) {
            // Nineteen digits overflow a long; no answer means to wait that long, and the cap applies anyway.
            return Optional.of(text.length() > 18 ? Duration.ofSeconds(Long.MAX_VALUE / 1_000_000_000L)
                    : Duration.ofSeconds(Long.parseLong(text)));
        }
        try {
            Instant at = ZonedDateTime.parse(text, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
            return Optional.of(at.isAfter(now) ? Duration.between(now, at) : Duration.ZERO);
        } catch (DateTimeParseException notADate) {
            return Optional.empty();
        }
    }
}
