package io.paycallback.testsupport;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.StringDeserializer;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** A topic of a test's broker ({@link KafkaBroker}) as its consumers see it. */
public final class KafkaTopic {

    private KafkaTopic() {
    }

    /** One record as read: the key and value as UTF-8 (null where absent), headers by key (the last of a repeated one). */
    public record Received(String key, String value, Map<String, String> headers, int partition, long offset) {
    }

    /** Creates {@code name} with one replica, returning once the controller has it. */
    public static void create(String bootstrapServers, String name, int partitions) {
        try (Admin admin = Admin.create(Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 15_000))) {
            admin.createTopics(List.of(new NewTopic(name, partitions, (short) 1))).all().get(20, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("could not create topic " + name, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /**
     * Every committed record of {@code topic} up to its end at the time of the call, by partition then offset; none when
     * the topic does not exist (reading never creates it). Fails when they cannot be read within {@code timeout}.
     */
    public static List<Received> readAll(String bootstrapServers, String topic, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        // No group: the partitions are assigned and read from their start, so nothing is committed or rebalanced.
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
                ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false,
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"),
                new StringDeserializer(), new StringDeserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic, timeout).stream()
                    .map(info -> new TopicPartition(topic, info.partition())).toList();
            if (partitions.isEmpty()) {
                return List.of();
            }
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> ends = consumer.endOffsets(partitions, remaining(deadline));
            List<Received> records = new ArrayList<>();
            while (partitions.stream().anyMatch(partition -> consumer.position(partition, remaining(deadline)) < ends.get(partition))) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("could not read " + topic + " to " + ends + " within " + timeout);
                }
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                    records.add(received(record));
                }
            }
            records.sort(Comparator.comparingInt(Received::partition).thenComparingLong(Received::offset));
            return records;
        }
    }

    /** Waits until {@code topic} holds at least {@code count} records (a delivery is asynchronous), and returns them all. */
    public static List<Received> await(String bootstrapServers, String topic, int count, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        List<Received> records = List.of();
        while (System.nanoTime() < deadline) {
            records = readAll(bootstrapServers, topic, Duration.ofSeconds(10));
            if (records.size() >= count) {
                return records;
            }
            sleepBriefly();
        }
        throw new AssertionError("expected at least " + count + " records in " + topic + " within " + timeout + ", read "
                + records.size() + ": " + records);
    }

    private static Received received(ConsumerRecord<String, String> record) {
        Map<String, String> headers = new LinkedHashMap<>();
        for (Header header : record.headers()) {
            headers.put(header.key(), header.value() == null ? null : new String(header.value(), StandardCharsets.UTF_8));
        }
        return new Received(record.key(), record.value(), headers, record.partition(), record.offset());
    }

    private static Duration remaining(long deadline) {
        return Duration.ofNanos(Math.max(deadline - System.nanoTime(), 0));
    }

    private static void sleepBriefly() {
        try {
            Thread.sleep(200);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
