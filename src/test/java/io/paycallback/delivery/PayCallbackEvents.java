package io.paycallback.delivery;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.header.Header;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads pay-callback's events from a Kafka destination's topic: the consumer of the tests, and the example of
 * docs/webhooks.md, which WebhooksDocTest holds to this file.
 */
public final class PayCallbackEvents {

    /** Your effect: it stores the webhook-id with it, in one transaction, and does nothing for an id it has stored. */
    public interface Handler {
        void handle(String webhookId, String type, byte[] body);
    }

    private final KafkaConsumer<String, byte[]> consumer;
    private final WebhookVerifier verifier;

    /**
     * @param consumer subscribed to the topic, with {@code enable.auto.commit=false}, a String key and byte[] value
     * @param verifier the destination's signing secret, as for a webhook
     */
    public PayCallbackEvents(KafkaConsumer<String, byte[]> consumer, WebhookVerifier verifier) {
        this.consumer = consumer;
        this.verifier = verifier;
    }

    /**
     * One poll: each record that verifies is handled, then the offsets are committed. A crash before the commit reads
     * the records again, and the handler drops what it has done. Returns the records that did not verify.
     */
    public List<ConsumerRecord<String, byte[]>> poll(Handler handler) throws GeneralSecurityException {
        List<ConsumerRecord<String, byte[]>> refused = new ArrayList<>();
        for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofSeconds(1))) {
            String id = header(record, "webhook-id");
            // A topic is read later than a POST arrives: the record's own time stands for "now".
            if (verifier.verify(id, header(record, "webhook-timestamp"), header(record, "webhook-signature"),
                    record.value(), record.timestamp() / 1000)) {
                handler.handle(id, header(record, "webhook-event-type"), record.value());
            } else {
                refused.add(record);
            }
        }
        consumer.commitSync();
        return refused;
    }

    private static String header(ConsumerRecord<String, byte[]> record, String name) {
        Header header = record.headers().lastHeader(name);
        return header == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }
}
