package io.paycallback.delivery;

import javax.net.ssl.SSLException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.UnknownHostException;
import java.nio.channels.ClosedChannelException;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.TimeoutException;

/**
 * Why a try got no answer, said as an operator would say it ("connection refused", "timed out after 5 s"), and the
 * exception it came from for whoever needs the detail. Stored as one text, {@code <said> — <detail>}; where nothing
 * better is known, the exception alone.
 *
 * @param said   what happened
 * @param detail the exception; empty when the stored text said nothing more
 */
public record FailureReason(String said, String detail) {

    private static final String DETAIL = " — ";

    /** The text stored for a try that failed with {@code failure}. */
    public static String of(Throwable failure, Duration timeout) {
        String detail = detail(failure);
        String said = said(failure, timeout);
        return said == null ? detail : said + DETAIL + detail;
    }

    /** A stored reason read back; null or empty reads as nothing said. */
    public static FailureReason read(String stored) {
        if (stored == null) {
            return new FailureReason("", "");
        }
        int at = stored.indexOf(DETAIL);
        return at < 0 ? new FailureReason(stored, "") : new FailureReason(stored.substring(0, at),
                stored.substring(at + DETAIL.length()));
    }

    private static String said(Throwable failure, Duration timeout) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause() == cause ? null : cause.getCause()) {
            String message = cause.getMessage() == null ? "" : cause.getMessage().toLowerCase(Locale.ROOT);
            String kafka = kafka(cause, message, timeout);
            if (kafka != null) {
                return kafka;
            }
            if (cause instanceof UnknownHostException || message.contains("failed to resolve")) {
                return "host name not found";
            }
            if (cause instanceof NoRouteToHostException || message.contains("no route to host")) {
                return "no route to the host";
            }
            if (cause instanceof ConnectException && message.contains("refused")) {
                return "connection refused";
            }
            if (cause instanceof ConnectException && message.contains("timed out")) {
                return "could not connect within " + seconds(timeout);
            }
            if (cause instanceof TimeoutException || cause.getClass().getSimpleName().contains("Timeout")) {
                return "timed out after " + seconds(timeout);
            }
            if (cause instanceof SSLException) {
                return "TLS handshake failed";
            }
            if (message.contains("connection reset")) {
                return "connection reset by the destination";
            }
            if (cause instanceof ClosedChannelException || cause.getClass().getSimpleName().equals("HttpClosedException")
                    || message.contains("connection was closed")) {
                return "connection closed before an answer";
            }
        }
        return null;
    }

    /** A Kafka producer's failures, by the client's exception types (named, so no class is loaded for HTTP). */
    private static String kafka(Throwable cause, String message, Duration timeout) {
        String type = cause.getClass().getName();
        if (!type.startsWith("org.apache.kafka.")) {
            return null;
        }
        if (message.contains("not present in metadata")) {
            return "no broker answered for the topic within " + seconds(timeout);
        }
        if (type.endsWith(".TimeoutException")) {
            return "the brokers did not acknowledge within " + seconds(timeout);
        }
        if (type.endsWith("AuthorizationException")) {
            return "not authorised to write to the topic";
        }
        if (type.endsWith("AuthenticationException")) {
            return "the brokers refused the credentials";
        }
        if (type.endsWith(".RecordTooLargeException")) {
            return "the record is larger than the brokers take";
        }
        if (type.endsWith(".InvalidTopicException") || type.endsWith(".UnknownTopicOrPartitionException")) {
            return "the brokers have no such topic";
        }
        return null;
    }

    private static String detail(Throwable failure) {
        return failure.getClass().getSimpleName() + (failure.getMessage() == null ? "" : ": " + failure.getMessage());
    }

    private static String seconds(Duration timeout) {
        long millis = timeout.toMillis();
        return millis % 1000 == 0 ? millis / 1000 + " s" : millis + " ms";
    }
}
