package io.paycallback.delivery;

import io.paycallback.tracing.SpanAttribute;
import io.paycallback.tracing.Traceparent;
import io.paycallback.tracing.Traced;
import io.vertx.core.Context;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.header.internals.RecordHeaders;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * A try as one record on the destination's topic: keyed by the event's order ({@code merchant:out_trade_no}), so one
 * order's events share a partition; its value the event's JSON body unchanged; its headers those of an HTTP try
 * ({@code webhook-id}, {@code webhook-timestamp}, {@code webhook-signature} where the destination signs, the
 * Idempotency-Key, the traceparent) and the event's type. Delivered when the brokers acknowledge it ({@code acks=all},
 * idempotent producer); a record not acknowledged within the destination's timeout is a failed try, retried on the
 * delivery schedule like an HTTP one.
 *
 * <p>{@link Producer#send} waits for the topic's metadata while the brokers are unreachable, so every send runs on the
 * destination's own thread, in the order the lane started them, and never on the event loop; the acknowledgement comes
 * on the producer's network thread and is handed back to the event loop that sent.
 */
final class KafkaTransport implements Transport {

    static final String EVENT_TYPE = "webhook-event-type";
    static final String IDEMPOTENCY_KEY = "idempotency-key";
    static final String CONTENT_TYPE = "content-type";

    private final Destinations.Destination destination;
    private final String topic;
    private final Producer<String, byte[]> producer;
    private final ExecutorService sending;

    KafkaTransport(Destinations.Destination destination, Destinations.Kafka endpoint) {
        this(destination, endpoint.settings().topic(), new KafkaProducer<>(properties(endpoint.settings())));
    }

    KafkaTransport(Destinations.Destination destination, String topic, Producer<String, byte[]> producer) {
        this.destination = destination;
        this.topic = topic;
        this.producer = producer;
        this.sending = Executors.newSingleThreadExecutor(task -> {
            Thread thread = new Thread(task, "kafka-destination-" + destination.name());
            thread.setDaemon(true);
            return thread;
        });
    }

    private static Properties properties(KafkaProducerSettings settings) {
        Properties properties = new Properties();
        properties.putAll(settings.producer());
        return properties;
    }

    @Override
    public void send(Outgoing outgoing, Traced span, Ended ended) {
        long started = System.nanoTime();
        Context loop = io.vertx.core.Vertx.currentContext();
        span.set(SpanAttribute.MESSAGING_SYSTEM, "kafka").set(SpanAttribute.MESSAGING_DESTINATION, topic);
        ProducerRecord<String, byte[]> record = new ProducerRecord<>(topic, null, outgoing.event().orderKey(),
                outgoing.body(), headers(outgoing));
        try {
            sending.execute(() -> {
                // While the topic's metadata is missing each send() blocks for up to the timeout, and the tries queued
                // behind it on this one thread would each wait that long again (16 s for a 2 s timeout with eight in
                // flight, long after their leases ran out): a try that has already waited its whole timeout is failed
                // unsent, as one that found no broker, so none takes much more than twice its timeout.
                long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
                if (waited >= destination.timeout().toMillis()) {
                    TimeoutException unsent = new TimeoutException("Topic " + topic + " not present in metadata for the "
                            + waited + " ms this record waited behind earlier ones");
                    loop.runOnContext(ignored -> ended.ended(failed(outgoing, unsent, started), Optional.empty()));
                    return;
                }
                try {
                    producer.send(record, (metadata, failure) -> loop.runOnContext(ignored -> ended.ended(failure == null
                            ? DeliveryAttempt.acknowledged(outgoing.lease(), destination.name(),
                            "partition " + metadata.partition() + " offset " + metadata.offset(), started)
                            : failed(outgoing, failure, started), Optional.empty())));
                } catch (RuntimeException failure) {
                    loop.runOnContext(ignored -> ended.ended(failed(outgoing, failure, started), Optional.empty()));
                }
            });
        } catch (RejectedExecutionException closing) {
            ended.ended(failed(outgoing, closing, started), Optional.empty());
        }
    }

    private DeliveryAttempt failed(Outgoing outgoing, Throwable failure, long started) {
        return DeliveryAttempt.failed(outgoing.lease(), destination.name(), FailureReason.of(failure,
                destination.timeout()), started);
    }

    private static RecordHeaders headers(Outgoing outgoing) {
        RecordHeaders headers = new RecordHeaders();
        // A consumer drops a repeat by webhook-id, signed or not; the timestamp is when this try was produced.
        WebhookSigner.Headers signed = outgoing.signed().orElseGet(() -> new WebhookSigner.Headers(
                WebhookSigner.webhookId(outgoing.idempotencyKey()), outgoing.at().getEpochSecond(), null));
        add(headers, WebhookSigner.ID, signed.id());
        add(headers, WebhookSigner.TIMESTAMP, Long.toString(signed.timestamp()));
        if (signed.signature() != null) {
            add(headers, WebhookSigner.SIGNATURE, signed.signature());
        }
        add(headers, EVENT_TYPE, outgoing.event().type());
        add(headers, IDEMPOTENCY_KEY, outgoing.idempotencyKey());
        add(headers, CONTENT_TYPE, "application/json");
        outgoing.traceparent().ifPresent(traceparent -> add(headers, Traceparent.HEADER, traceparent.value()));
        return headers;
    }

    private static void add(RecordHeaders headers, String name, String value) {
        headers.add(name, value.getBytes(StandardCharsets.UTF_8));
    }

    /** Sends what was started, then waits for its acknowledgements at most one timeout. */
    @Override
    public void close() {
        sending.shutdown();
        try {
            sending.awaitTermination(destination.timeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        producer.close(destination.timeout());
    }
}
