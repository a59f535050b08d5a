package io.paycallback.ops;

import com.fasterxml.jackson.annotation.JsonValue;

import java.time.LocalDateTime;
import java.util.Locale;

/**
 * One thing on the overview that needs a person, most urgent concern first.
 *
 * @param subject what it is about: a destination's name, a leased table's label or a WeChat Pay mchid; empty for the
 *                whole service
 * @param count   how many rows or events it concerns
 * @param since   the oldest of them, where the service knows it; null otherwise
 * @param said    what it is, as a sentence
 */
public record Attention(Concern concern, String subject, long count, LocalDateTime since, String said) {

    /** What needs a person, in the order they are shown: the first stops everything, the last waits for a quiet hour. */
    public enum Concern {
        /** This instance could not read the database: nothing below can be known. */
        DATABASE_UNREACHABLE,
        /** A destination an operator or the service disabled: its events wait for an operator. */
        DESTINATION_DISABLED,
        /** A destination whose circuit is open: its events wait while probes fail. */
        DESTINATION_OPEN,
        /** A merchant's WeChat Pay platform certificates could not be downloaded: a new serial will not verify. */
        CERTIFICATES_FAILING,
        /** The last WeChat Pay platform certificate a merchant holds expires within a week. */
        CERTIFICATES_EXPIRING,
        /** Pending rows older than the stale threshold: something is not working them. */
        STALE_PENDING,
        /** Rows given up after their last try, or at once: each wants a replay, a requeue or a note. */
        DEAD_LETTERS,
        /** Statement lines that disagree with the ledger. */
        STATEMENT_DIFFERENCES,
        /** Signed callbacks that did not parse, held for a parser fix or a registry change. */
        QUARANTINE;

        @JsonValue
        public String label() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }
    }
}
