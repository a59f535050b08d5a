package io.paycallback.callback;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.paycallback.channel.CallbackKind;
import io.paycallback.channel.ChannelId;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.Locale;
import java.util.concurrent.TimeUnit;

/** {@code paycallback_callbacks_total{channel,kind,outcome}} and {@code paycallback_callback_seconds}. */
@ApplicationScoped
public class CallbackMetrics {

    static final String CALLBACKS = "paycallback.callbacks";
    static final String LATENCY = "paycallback.callback";

    private final MeterRegistry registry;

    public CallbackMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    public void record(ChannelId channel, CallbackKind kind, CallbackResult result, long startNanos) {
        String channelTag = channel.path();
        String kindTag = kind.name().toLowerCase(Locale.ROOT);
        Counter.builder(CALLBACKS)
                .description("Callbacks received, by what became of them")
                .tags("channel", channelTag, "kind", kindTag, "outcome", result.tag())
                .register(registry)
                .increment();
        Timer.builder(LATENCY)
                .description("Time from a callback's arrival to its answer")
                .tags("channel", channelTag, "kind", kindTag)
                .publishPercentileHistogram()
                .register(registry)
                .record(System.nanoTime() - startNanos, TimeUnit.NANOSECONDS);
    }
}
