package io.paycallback.inbox;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Ticker;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.paycallback.lease.LeasedTable;
import io.paycallback.trade.ChannelId;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.time.Duration;
import java.util.Optional;

/**
 * Keys this instance has met as duplicates, so that a provider's further repeat pushes within minutes are answered
 * "already have it" without a round trip to the database. Exact, not a guess: a key is only remembered after its
 * INSERT failed on the unique key, so a committed row holds it, and rows leave the idempotency tables only through
 * housekeeping's retention, at least seven days, far beyond an entry's life. The database stays the one arbiter of
 * every first push and of the first repeat; this only spares it the rest, which in a provider's retry storm are most
 * of the traffic. First pushes are not remembered: nearly all of them are never repeated, and keeping them would turn
 * every unique callback into a cache write and minutes-lived garbage for the collector. Each instance has its own: a
 * repeat that reaches another pod goes to the database as before.
 */
@ApplicationScoped
public class KnownReservations {

    static final String ANSWERED = "paycallback.known.reservations.answered";
    static final String SIZE = "paycallback.known.reservations";
    private static final Duration LONGEST_TTL = Duration.ofDays(1);

    record Key(LeasedTable table, String merchantId, ChannelId channel, String number) {
    }

    private final Optional<Cache<Key, Boolean>> keys;
    private final Counter answered;

    @Inject
    public KnownReservations(InboxConfig config, MeterRegistry registry) {
        this(config, Ticker.systemTicker(), Counter.builder(ANSWERED)
                .description("Repeat pushes answered from memory, without a round trip to the database")
                .register(registry));
        keys.ifPresent(cache -> Gauge.builder(SIZE, cache, Cache::estimatedSize)
                .description("Keys met as duplicates and remembered for their further repeats")
                .register(registry));
    }

    KnownReservations(InboxConfig settings, Ticker ticker, Counter answered) {
        this.answered = answered;
        if (settings.size() < 0) {
            throw new IllegalArgumentException("paycallback.callback.known-reservations.size must be 0 (off) or more");
        }
        if (settings.ttl().compareTo(LONGEST_TTL) > 0) {
            throw new IllegalArgumentException("paycallback.callback.known-reservations.ttl must be at most 1d: an entry"
                    + " must expire long before housekeeping's retention (7d at least) can archive its row");
        }
        this.keys = settings.size() == 0 ? Optional.empty() : Optional.of(Caffeine.newBuilder()
                .maximumSize(settings.size())
                .expireAfterWrite(settings.ttl())
                .ticker(ticker)
                // Upkeep runs on the calling thread (amortised, never blocking) instead of a hand-off to a pool.
                .executor(Runnable::run)
                .build());
    }

    boolean contains(Key key) {
        boolean known = keys.isPresent() && keys.get().getIfPresent(key) != null;
        if (known) {
            answered.increment();
        }
        return known;
    }

    void remember(Key key) {
        keys.ifPresent(cache -> cache.put(key, Boolean.TRUE));
    }
}
