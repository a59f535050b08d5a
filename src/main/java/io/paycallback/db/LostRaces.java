package io.paycallback.db;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.Startup;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;

/**
 * Races lost to another transaction ({@link MySqlErrors#isLostRace}: a deadlock, or a multi-primary cluster's
 * certification failure) and run again, counted as {@code paycallback_lost_races_total{at}}. On one server they are
 * rare; on Galera or Group Replication every write to the same rows through two nodes at once ends in one, so the
 * count shows how much of the work is repeated for that.
 */
@Startup
@ApplicationScoped
public class LostRaces {

    static final String LOST_RACES = "paycallback.lost.races";

    /** Where the race was lost. */
    public enum At {
        /** The reservation's autocommit INSERT: run again at once, answered from its second outcome. */
        RESERVATION,
        /** A leased try's transaction or its COMMIT: the rows are given back and tried again, no try counted. */
        TRANSACTION
    }

    /**
     * Runs again at most. One is what a lost certification needs, since the winner has committed by then and the retry
     * meets its row (a reservation: as a duplicate); a second covers a third writer.
     */
    static final int RETRIES = 2;

    private final Map<At, Counter> counters = new EnumMap<>(At.class);

    public LostRaces(MeterRegistry registry) {
        for (At at : At.values()) {
            counters.put(at, Counter.builder(LOST_RACES)
                    .description("Statements or transactions that lost a race (deadlock, certification failure) and ran again")
                    .tag("at", at.name().toLowerCase(Locale.ROOT))
                    .register(registry));
        }
    }

    public void record(At at) {
        counters.get(at).increment();
    }

    /**
     * The statement or transaction, run again when it loses a race, at most {@link #RETRIES} times; it must be lazy (each
     * subscription executes it anew, as the pool's queries and {@code withTransaction} do).
     */
    public <T> Uni<T> retried(Uni<T> work, At at) {
        return work.onFailure(MySqlErrors::isLostRace).invoke(() -> record(at))
                .onFailure(MySqlErrors::isLostRace).retry().atMost(RETRIES);
    }
}
