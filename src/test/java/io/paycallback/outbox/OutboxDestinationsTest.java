package io.paycallback.outbox;

import io.paycallback.testsupport.ConfigStub;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.paycallback.lease.LeaseConfig;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class OutboxDestinationsTest {

    @Test
    void aMisspeltEventTypeStopsTheStartNamingTheKey() {
        assertThatThrownBy(() -> outbox(Map.of("warehouse", List.of("order.paid", "order_paid"))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("paycallback.downstream.destinations.warehouse.events")
                .hasMessageContaining("'order_paid'")
                .hasMessageContaining("refund.submitted");
    }

    @Test
    void aDestinationIsAUrlOrAKafkaTopicNeverBothNorNeither() {
        for (boolean both : new boolean[] {true, false}) {
            Map<String, Object> answers = Map.of("url", both ? Optional.of("http://localhost/w") : Optional.empty(),
                    "kafka", both ? Optional.of(ConfigStub.of(OutboxConfig.KafkaSettings.class, Map.of())) : Optional.empty(),
                    "events", List.of("order.paid"));
            OutboxConfig config = ConfigStub.of(OutboxConfig.class, Map.of("destinations",
                    Map.of("warehouse", ConfigStub.of(OutboxConfig.DestinationSettings.class, answers)),
                    "parkedFor", Duration.ofHours(1)));
            assertThatThrownBy(() -> new Outbox(new ObjectMapper(), Clock.systemUTC(),
                    ConfigStub.of(LeaseConfig.class, Map.of("lease", Duration.ofSeconds(60))), config))
                    .hasMessageContaining("set exactly one of paycallback.downstream.destinations.warehouse.url (HTTP) and "
                            + "paycallback.downstream.destinations.warehouse.kafka.*");
        }
    }

    @Test
    void eachTypeGoesToItsSubscribersAndTheRestToTheLog() {
        Outbox outbox = outbox(Map.of("warehouse", List.of("order.paid", " refund.succeeded")));
        assertThat(outbox.destinations(EventType.ORDER_PAID)).containsExactly("warehouse");
        assertThat(outbox.destinations(EventType.REFUND_SUCCEEDED)).containsExactly("warehouse");
        assertThat(outbox.destinations(EventType.ALERT)).containsExactly("log");
    }

    private static Outbox outbox(Map<String, List<String>> subscriptions) {
        Map<String, OutboxConfig.DestinationSettings> destinations = new LinkedHashMap<>();
        subscriptions.forEach((name, events) -> destinations.put(name, ConfigStub.of(OutboxConfig.DestinationSettings.class,
                Map.of("url", Optional.of("http://localhost/" + name), "kafka", Optional.empty(), "events", events, "timeout", Duration.ofSeconds(5)))));
        LeaseConfig lease = ConfigStub.of(LeaseConfig.class, Map.of("lease", Duration.ofSeconds(60)));
        OutboxConfig config = ConfigStub.of(OutboxConfig.class, Map.of("destinations", destinations, "parkedFor", Duration.ofHours(1)));
        return new Outbox(new ObjectMapper(), Clock.systemUTC(), lease, config);
    }

}
