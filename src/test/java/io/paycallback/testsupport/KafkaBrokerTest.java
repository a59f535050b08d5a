package io.paycallback.testsupport;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The test broker works as the destination tests count on: records, keys and headers, and data that outlives a kill. */
class KafkaBrokerTest {

    private static final Duration READ = Duration.ofSeconds(20);

    @Test
    void recordsRoundTripAndSurviveAKillAndRestart() throws Exception {
        KafkaBroker broker = KafkaBroker.shared();
        String topic = Ids.unique("harness-");
        KafkaTopic.create(broker.bootstrapServers(), topic, 3);
        assertThat(KafkaTopic.readAll(broker.bootstrapServers(), Ids.unique("absent-"), READ)).isEmpty();

        try (KafkaProducer<String, String> producer = producer(broker)) {
            for (int i = 0; i < 6; i++) {
                producer.send(record(topic, i)).get(20, TimeUnit.SECONDS);
            }
            List<KafkaTopic.Received> first = KafkaTopic.readAll(broker.bootstrapServers(), topic, READ);
            assertThat(first).hasSize(6).allSatisfy(KafkaBrokerTest::assertAsSent);
            assertThat(first.stream().map(KafkaTopic.Received::partition).distinct()).hasSizeGreaterThan(1);

            broker.kill9();
            assertThatThrownBy(() -> producer.send(record(topic, 6)).get(10, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(org.apache.kafka.common.errors.TimeoutException.class);

            broker.restart();
            producer.send(record(topic, 7)).get(30, TimeUnit.SECONDS);
        }
        List<KafkaTopic.Received> all = KafkaTopic.readAll(broker.bootstrapServers(), topic, READ);
        assertThat(all).extracting(KafkaTopic.Received::key)
                .containsExactlyInAnyOrderElementsOf(IntStream.of(0, 1, 2, 3, 4, 5, 7).mapToObj(i -> "order-" + i).toList());
        assertThat(all).allSatisfy(KafkaBrokerTest::assertAsSent);
    }

    private static KafkaProducer<String, String> producer(KafkaBroker broker) {
        return new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true,
                ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.LINGER_MS_CONFIG, 0,
                // A send to a dead broker fails in seconds rather than the default two minutes.
                ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 2_000,
                ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 3_000,
                ProducerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 500),
                new StringSerializer(), new StringSerializer());
    }

    private static ProducerRecord<String, String> record(String topic, int i) {
        ProducerRecord<String, String> record = new ProducerRecord<>(topic, "order-" + i, "{\"n\":" + i + "}");
        record.headers().add(new RecordHeader("event-type", "order.paid".getBytes(StandardCharsets.UTF_8)));
        record.headers().add(new RecordHeader("attempt", Integer.toString(i).getBytes(StandardCharsets.UTF_8)));
        return record;
    }

    /** The record read is the one {@link #record} made under its key, wherever it landed. */
    private static void assertAsSent(KafkaTopic.Received received) {
        String i = received.key().substring("order-".length());
        assertThat(received).isEqualTo(new KafkaTopic.Received("order-" + i, "{\"n\":" + i + "}",
                Map.of("event-type", "order.paid", "attempt", i), received.partition(), received.offset()));
    }
}
