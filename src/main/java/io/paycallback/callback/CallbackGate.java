package io.paycallback.callback;

import io.paycallback.config.PayCallbackConfig;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.concurrent.Semaphore;

/**
 * Caps callbacks in flight. A full gate answers at once: when the provider flushes a backlog, waiting in a queue
 * behind a slow database only turns into the provider's own time-out, and it pushes again anyway.
 */
@ApplicationScoped
public class CallbackGate {

    private final Semaphore permits;

    public CallbackGate(PayCallbackConfig config) {
        this.permits = new Semaphore(config.callback().maxConcurrency());
    }

    public boolean tryEnter() {
        return permits.tryAcquire();
    }

    public void leave() {
        permits.release();
    }

    public int available() {
        return permits.availablePermits();
    }
}
