package io.paycallback.callback;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.concurrent.Semaphore;

/**
 * Caps callbacks in flight. A full gate answers at once: when the provider flushes a backlog, waiting in a queue
 * behind a slow database only turns into the provider's own time-out, and it pushes again anyway.
 */
@ApplicationScoped
public class CallbackGate {

    static final String IN_FLIGHT = "paycallback.callbacks.in.flight";

    private final int capacity;
    private final Semaphore permits;

    public CallbackGate(CallbackConfig config, MeterRegistry registry) {
        this.capacity = config.maxConcurrency();
        this.permits = new Semaphore(capacity);
        Gauge.builder(IN_FLIGHT, this, CallbackGate::inFlight)
                .description("Callbacks inside the gate now; at max-concurrency the next one is answered busy")
                .register(registry);
    }

    public boolean tryEnter() {
        return permits.tryAcquire();
    }

    public void leave() {
        permits.release();
    }

    public int inFlight() {
        return capacity - permits.availablePermits();
    }
}
