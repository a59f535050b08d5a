package io.paycallback.delivery;

import io.netty.channel.ConnectTimeoutException;
import io.vertx.core.http.HttpClosedException;
import org.junit.jupiter.api.Test;

import javax.net.ssl.SSLHandshakeException;
import java.net.ConnectException;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.concurrent.TimeoutException;

import static org.assertj.core.api.Assertions.assertThat;

class FailureReasonTest {

    private static final Duration FIVE_SECONDS = Duration.ofSeconds(5);

    @Test
    void saysWhatHappenedThenTheDetail() {
        String refused = FailureReason.of(new ConnectException(
                "finishConnect(..) failed with error(-111): Connection refused: /127.0.0.1:9"), FIVE_SECONDS);

        assertThat(refused).isEqualTo("connection refused — ConnectException: finishConnect(..) failed with "
                + "error(-111): Connection refused: /127.0.0.1:9");
        assertThat(FailureReason.read(refused)).isEqualTo(new FailureReason("connection refused",
                "ConnectException: finishConnect(..) failed with error(-111): Connection refused: /127.0.0.1:9"));
    }

    @Test
    void namesTheCommonFailuresOfAnHttpTry() {
        assertThat(headline(new TimeoutException("The timeout period of 5000ms has been exceeded while executing POST")))
                .isEqualTo("timed out after 5 s");
        assertThat(FailureReason.read(FailureReason.of(new TimeoutException(), Duration.ofMillis(1500))).said())
                .isEqualTo("timed out after 1500 ms");
        assertThat(headline(new ConnectTimeoutException("connection timed out: /10.0.0.1:443")))
                .isEqualTo("could not connect within 5 s");
        assertThat(headline(new UnknownHostException("Failed to resolve 'warehouse.internal'")))
                .isEqualTo("host name not found");
        assertThat(headline(new RuntimeException("wrapped", new SSLHandshakeException("PKIX path building failed"))))
                .isEqualTo("TLS handshake failed");
        assertThat(headline(new HttpClosedException("Connection was closed"))).isEqualTo("connection closed before an answer");
        assertThat(headline(new java.io.IOException("Connection reset by peer")))
                .isEqualTo("connection reset by the destination");
    }

    @Test
    void namesTheFailuresOfAKafkaRecord() {
        assertThat(headline(new org.apache.kafka.common.errors.TimeoutException(
                "Topic payments not present in metadata after 5000 ms."))).isEqualTo("no broker answered for the topic within 5 s");
        assertThat(headline(new org.apache.kafka.common.errors.TimeoutException(
                "Expiring 1 record(s) for payments-0:5005 ms has passed since batch creation")))
                .isEqualTo("the brokers did not acknowledge within 5 s");
        assertThat(headline(new org.apache.kafka.common.errors.TopicAuthorizationException("Not authorized to access topics")))
                .isEqualTo("not authorised to write to the topic");
        assertThat(headline(new org.apache.kafka.common.errors.SaslAuthenticationException("Authentication failed")))
                .isEqualTo("the brokers refused the credentials");
        assertThat(headline(new org.apache.kafka.common.errors.RecordTooLargeException("too large")))
                .isEqualTo("the record is larger than the brokers take");
    }

    @Test
    void leavesWhatItDoesNotKnowAsTheExceptionAlone() {
        String odd = FailureReason.of(new IllegalStateException("something else"), FIVE_SECONDS);

        assertThat(odd).isEqualTo("IllegalStateException: something else");
        assertThat(FailureReason.read(odd)).isEqualTo(new FailureReason(odd, ""));
        assertThat(FailureReason.read(null)).isEqualTo(new FailureReason("", ""));
    }

    private static String headline(Throwable failure) {
        return FailureReason.read(FailureReason.of(failure, FIVE_SECONDS)).said();
    }
}
