package io.paycallback.delivery;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.Startup;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Each destination at a glance, every series from start-up: {@code paycallback_destination_state} (0 closed, 1 open,
 * 2 half-open, 3 disabled; the shared state, the same on every instance), {@code paycallback_destination_backlog} (its
 * pending events, parked ones included) and {@code paycallback_destination_oldest_pending_seconds} (how long ago the
 * oldest of them was written), both database counts recounted every gauge interval, and
 * {@code paycallback_destination_recoveries_total} (circuits this instance saw close again after they had opened).
 */
@Startup
@ApplicationScoped
public class DestinationMetrics {

    static final String STATE = "paycallback.destination.state";
    static final String BACKLOG = "paycallback.destination.backlog";
    static final String OLDEST_PENDING = "paycallback.destination.oldest.pending.seconds";
    static final String RECOVERIES = "paycallback.destination.recoveries";

    private final Map<String, AtomicLong> states = new HashMap<>();
    private final Map<String, AtomicLong> backlogs = new HashMap<>();
    private final Map<String, AtomicLong> oldest = new HashMap<>();
    private final Map<String, Counter> recoveries = new HashMap<>();

    public DestinationMetrics(MeterRegistry registry, Destinations destinations) {
        for (Destinations.Destination destination : destinations.all()) {
            String name = destination.name();
            states.put(name, gauge(registry, STATE, name, "The destination's circuit: 0 closed, 1 open, 2 half-open, 3 disabled"));
            backlogs.put(name, gauge(registry, BACKLOG, name, "Pending events of the destination, parked ones included"));
            oldest.put(name, gauge(registry, OLDEST_PENDING, name, "Age of the destination's oldest pending event"));
            recoveries.put(name, Counter.builder(RECOVERIES)
                    .description("Circuits of the destination closed again after they had opened")
                    .tags("destination", name).register(registry));
        }
    }

    private static AtomicLong gauge(MeterRegistry registry, String name, String destination, String description) {
        AtomicLong value = new AtomicLong();
        Gauge.builder(name, value, AtomicLong::get).description(description).tags("destination", destination)
                .register(registry);
        return value;
    }

    void state(String destination, DestinationState state) {
        AtomicLong gauge = states.get(destination);
        if (gauge != null) {
            gauge.set(state.code());
        }
    }

    void backlog(String destination, long pending, long oldestSeconds) {
        AtomicLong count = backlogs.get(destination);
        if (count != null) {
            count.set(pending);
            oldest.get(destination).set(oldestSeconds);
        }
    }

    void recovered(String destination) {
        Counter counter = recoveries.get(destination);
        if (counter != null) {
            counter.increment();
        }
    }
}
