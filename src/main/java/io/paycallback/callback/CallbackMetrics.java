package io.paycallback.callback;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.paycallback.channel.CallbackKind;
import io.paycallback.health.CallbackRefusals;
import io.paycallback.trade.ChannelId;
import io.paycallback.trend.TrendRecorder;
import io.paycallback.trend.TrendSeries;
import io.quarkus.runtime.Startup;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * {@code paycallback_callbacks_total{channel,kind,outcome}} and {@code paycallback_callback_seconds{channel,kind}}.
 * Every series exists from start-up (at zero), so rate() and absent-data alerts work before the first callback, and
 * the hot path only looks meters up instead of building them; the console's chart of callbacks counts the same. The refusals' totals are read off the same counters.
 */
@Startup
@ApplicationScoped
public class CallbackMetrics implements CallbackRefusals {

    public static final String CALLBACKS = "paycallback.callbacks";
    static final String LATENCY = "paycallback.callback";

    private final Map<ChannelId, Map<CallbackKind, Map<CallbackDisposition, Counter>>> counters = new EnumMap<>(ChannelId.class);
    private final Map<ChannelId, Map<CallbackKind, Timer>> timers = new EnumMap<>(ChannelId.class);
    private final String[][] trendLabels = new String[ChannelId.values().length][CallbackDisposition.values().length];
    private final TrendRecorder trends;

    public CallbackMetrics(MeterRegistry registry, TrendRecorder trends) {
        this.trends = trends;
        for (ChannelId channel : ChannelId.values()) {
            for (CallbackDisposition result : CallbackDisposition.values()) {
                trendLabels[channel.ordinal()][result.ordinal()] = channel.path() + " " + result.tag();
            }
        }
        for (ChannelId channel : ChannelId.values()) {
            Map<CallbackKind, Map<CallbackDisposition, Counter>> byKind = new EnumMap<>(CallbackKind.class);
            Map<CallbackKind, Timer> timerByKind = new EnumMap<>(CallbackKind.class);
            for (CallbackKind kind : CallbackKind.values()) {
                String kindTag = kind.name().toLowerCase(Locale.ROOT);
                Map<CallbackDisposition, Counter> byResult = new EnumMap<>(CallbackDisposition.class);
                for (CallbackDisposition result : CallbackDisposition.values()) {
                    byResult.put(result, Counter.builder(CALLBACKS)
                            .description("Callbacks received, by what became of them")
                            .tags("channel", channel.path(), "kind", kindTag, "outcome", result.tag())
                            .register(registry));
                }
                byKind.put(kind, byResult);
                timerByKind.put(kind, Timer.builder(LATENCY)
                        .description("Time from a callback's arrival to its answer")
                        .tags("channel", channel.path(), "kind", kindTag)
                        .publishPercentileHistogram()
                        .register(registry));
            }
            counters.put(channel, byKind);
            timers.put(channel, timerByKind);
        }
    }

    public void record(ChannelId channel, CallbackKind kind, CallbackDisposition result, long startNanos) {
        counters.get(channel).get(kind).get(result).increment();
        trends.count(TrendSeries.CALLBACKS, trendLabels[channel.ordinal()][result.ordinal()], 1);
        timers.get(channel).get(kind).record(System.nanoTime() - startNanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public long rejectedBusy() {
        return total(CallbackDisposition.REJECTED_BUSY);
    }

    @Override
    public long storeFailed() {
        return total(CallbackDisposition.STORE_FAILED);
    }

    private long total(CallbackDisposition result) {
        double sum = 0;
        for (Map<CallbackKind, Map<CallbackDisposition, Counter>> byKind : counters.values()) {
            for (Map<CallbackDisposition, Counter> byResult : byKind.values()) {
                sum += byResult.get(result).count();
            }
        }
        return Math.round(sum);
    }
}
