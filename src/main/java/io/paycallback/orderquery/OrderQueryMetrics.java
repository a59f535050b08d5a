package io.paycallback.orderquery;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.paycallback.trade.ChannelId;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.Locale;

/** Queries by provider and result, and orders found paid by a query: a rising count means callbacks are being lost. */
@ApplicationScoped
public class OrderQueryMetrics {

    static final String QUERIES = "paycallback.reconcile.queries";
    static final String FOUND_PAID = "paycallback.reconcile.found.paid";

    /** The closed set of query results. */
    enum Asked {
        PAID, NOT_PAID, FAILED, RATE_LIMITED;

        String tag() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    private final MeterRegistry registry;

    public OrderQueryMetrics(MeterRegistry registry) {
        this.registry = registry;
        for (ChannelId channel : ChannelId.values()) {
            for (Asked result : Asked.values()) {
                queries(channel, result);
            }
            foundPaid(channel);
        }
    }

    void query(ChannelId channel, Asked result) {
        queries(channel, result).increment();
    }

    void foundPaid(ChannelId channel, boolean newlyStored) {
        if (newlyStored) {
            foundPaid(channel).increment();
        }
    }

    private Counter queries(ChannelId channel, Asked result) {
        return Counter.builder(QUERIES).description("Payment queries to the providers, by result")
                .tags("channel", channel.path(), "result", result.tag()).register(registry);
    }

    private Counter foundPaid(ChannelId channel) {
        return Counter.builder(FOUND_PAID).description("PENDING orders a query found paid: their callbacks were lost")
                .tags("channel", channel.path()).register(registry);
    }
}
