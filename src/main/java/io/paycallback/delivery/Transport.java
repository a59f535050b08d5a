package io.paycallback.delivery;

import io.paycallback.lease.RowLease;
import io.paycallback.outbox.PendingEvent;
import io.paycallback.tracing.Traceparent;
import io.paycallback.tracing.Traced;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * How one try of an event reaches its destination: an HTTP request ({@link HttpTransport}) or a Kafka record
 * ({@link KafkaTransport}). Everything else about a destination (its lane, circuit, schedule, signing, metrics, the
 * operator's tools) is the same whatever carries its events.
 */
interface Transport {

    /**
     * One try of an event as every transport sends it.
     *
     * @param body        exactly the bytes sent, which the signature covers
     * @param traceparent the try's span, for the destination to continue
     * @param signed      the Standard Webhooks headers; empty for a destination without a signing secret
     * @param at          the try's time
     */
    record Outgoing(RowLease lease, PendingEvent event, byte[] body, Optional<Traceparent> traceparent,
                    Optional<WebhookSigner.Headers> signed, Instant at) {

        String idempotencyKey() {
            return event.idempotencyKey();
        }
    }

    /** How one try ended, on the relay's event loop: its attempt and the pause the destination asked for. */
    interface Ended {
        void ended(DeliveryAttempt attempt, Optional<Duration> retryAfter);
    }

    /** Sends one try; called on the relay's event loop, and never blocks it. */
    void send(Outgoing outgoing, Traced span, Ended ended);

    /** Lets go of connections and threads at shutdown. */
    void close();
}
