package io.paycallback.outbox;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.paycallback.lease.LeaseConfig;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Proxy;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

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
    void eachTypeGoesToItsSubscribersAndTheRestToTheLog() {
        Outbox outbox = outbox(Map.of("warehouse", List.of("order.paid", " refund.succeeded")));
        assertThat(outbox.destinations(EventType.ORDER_PAID)).containsExactly("warehouse");
        assertThat(outbox.destinations(EventType.REFUND_SUCCEEDED)).containsExactly("warehouse");
        assertThat(outbox.destinations(EventType.ALERT)).containsExactly("log");
    }

    private static Outbox outbox(Map<String, List<String>> subscriptions) {
        Map<String, OutboxConfig.DestinationSettings> destinations = new LinkedHashMap<>();
        subscriptions.forEach((name, events) -> destinations.put(name, stub(OutboxConfig.DestinationSettings.class,
                Map.of("url", "http://localhost/" + name, "events", events, "timeout", Duration.ofSeconds(5)))));
        LeaseConfig lease = stub(LeaseConfig.class, Map.of("lease", Duration.ofSeconds(60)));
        OutboxConfig config = stub(OutboxConfig.class, Map.of("destinations", destinations, "parkedFor", Duration.ofHours(1)));
        return new Outbox(new ObjectMapper(), Clock.systemUTC(), lease, config);
    }

    /** A configuration interface answering only the methods named. */
    private static <T> T stub(Class<T> type, Map<String, Object> answers) {
        return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, (proxy, method, args) -> {
            if (!answers.containsKey(method.getName())) {
                throw new UnsupportedOperationException(method.getName());
            }
            return answers.get(method.getName());
        }));
    }
}
