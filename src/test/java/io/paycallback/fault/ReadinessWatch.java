package io.paycallback.fault;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Polls the instances' readiness every 200 ms while a fault lasts and adds up, per instance, how long each was not
 * ready: the outage as the instances saw it, which is what Kubernetes would have routed around.
 */
final class ReadinessWatch implements AutoCloseable {

    private static final long PERIOD_MILLIS = 200;

    private final List<ServiceInstance> instances;
    private final Map<String, Long> notReadyMillis = new LinkedHashMap<>();
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final Thread thread;

    ReadinessWatch(List<ServiceInstance> instances) {
        this.instances = instances;
        instances.forEach(instance -> notReadyMillis.put(instance.name(), 0L));
        thread = new Thread(this::watch, "readiness-watch");
        thread.setDaemon(true);
        thread.start();
    }

    /** Each not-ready answer counts the time since the previous round, since that is how long it went unseen. */
    private void watch() {
        long last = System.nanoTime();
        while (running.get()) {
            long now = System.nanoTime();
            long elapsed = (now - last) / 1_000_000;
            last = now;
            for (ServiceInstance instance : instances) {
                if (!instance.ready()) {
                    synchronized (notReadyMillis) {
                        notReadyMillis.merge(instance.name(), elapsed, Long::sum);
                    }
                }
            }
            try {
                Thread.sleep(PERIOD_MILLIS);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** Seconds not ready, per instance name. */
    Map<String, Double> notReadySeconds() {
        Map<String, Double> seconds = new LinkedHashMap<>();
        synchronized (notReadyMillis) {
            notReadyMillis.forEach((name, millis) -> seconds.put(name, Math.round(millis / 100.0) / 10.0));
        }
        return seconds;
    }

    @Override
    public void close() throws InterruptedException {
        running.set(false);
        thread.interrupt();
        thread.join(5_000);
    }
}
