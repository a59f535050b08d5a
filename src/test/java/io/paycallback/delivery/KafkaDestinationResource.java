package io.paycallback.delivery;

import io.paycallback.testsupport.FreePorts;
import io.paycallback.testsupport.KafkaBroker;
import io.paycallback.testsupport.KafkaTopic;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import org.opentest4j.TestAbortedException;

import java.util.HashMap;
import java.util.Map;
import java.util.UUID;

/**
 * Two Kafka destinations for {@link KafkaDestinationTest}: {@code bus} on the test JVM's broker ({@link KafkaBroker}),
 * a topic of three partitions made for this run, signed; and {@code brokerless}, whose only broker is a port nothing listens
 * on. This class runs in another class loader than the tests, so it hands the broker's address and the topic over as
 * configuration ({@code test.kafka.*}).
 */
public class KafkaDestinationResource implements QuarkusTestResourceLifecycleManager {

    static final String SECRET = WebhookSignerTest.secret(32, 51);
    static final int PARTITIONS = 3;

    @Override
    public Map<String, String> start() {
        Map<String, String> config = new HashMap<>();
        String bootstrap;
        String topic = "pay-events-" + UUID.randomUUID();
        try {
            bootstrap = KafkaBroker.shared().bootstrapServers();
            KafkaTopic.create(bootstrap, topic, PARTITIONS);
        } catch (TestAbortedException unavailable) {
            config.put("test.kafka.unavailable", unavailable.getMessage());
            bootstrap = "127.0.0.1:" + FreePorts.next();
        }
        String bus = "paycallback.downstream.destinations.bus.";
        config.put(bus + "kafka.bootstrap-servers", bootstrap);
        config.put(bus + "kafka.topic", topic);
        config.put(bus + "events", "order.paid,refund.requested,refund.succeeded,refund.failed");
        config.put(bus + "signing-secret", SECRET);
        config.put(bus + "concurrency", "16");
        String brokerless = "paycallback.downstream.destinations.brokerless.";
        config.put(brokerless + "kafka.bootstrap-servers", "127.0.0.1:" + FreePorts.next());
        config.put(brokerless + "kafka.topic", "nobody-reads-this");
        config.put(brokerless + "events", "order.paid");
        config.put(brokerless + "timeout", "1s");
        config.put("paycallback.downstream.breaker.min-tries", "3");
        config.put("test.kafka.bootstrap-servers", bootstrap);
        config.put("test.kafka.topic", topic);
        return config;
    }

    @Override
    public void stop() {
    }
}
