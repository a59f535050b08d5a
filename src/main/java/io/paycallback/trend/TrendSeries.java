package io.paycallback.trend;

import java.util.Locale;
import java.util.Optional;

/** What the console charts, minute by minute; the stored name is the lower-case constant. */
public enum TrendSeries {
    /** Callbacks answered, labelled {@code <provider> <answer>}. */
    CALLBACKS(Merge.SUM),
    /** Leased tries, labelled {@code <table label> <result>} (a payment that made its order PAID: {@code payment paid}). */
    PROCESSED(Merge.SUM),
    /** Delivery tries, labelled {@code <destination> delivered|failed}. */
    DELIVERIES(Merge.SUM),
    /**
     * Delivered events by how long after their writing (the callback's processing) they were delivered, labelled
     * {@code <destination> <upper bound in ms>}.
     */
    DELIVERY_LATENCY(Merge.SUM),
    /** A destination's pending events, sampled; labelled by the destination. */
    BACKLOG(Merge.MAX),
    /** Dead rows of a leased table, sampled; labelled by the table's label. */
    DEAD_LETTERS(Merge.MAX);

    /** How the instances' values of one minute become the minute's value. */
    public enum Merge {
        /** Each instance counted its own: add them. */
        SUM,
        /** Each instance sampled the same database: the largest is the latest. */
        MAX
    }

    private final Merge merge;

    TrendSeries(Merge merge) {
        this.merge = merge;
    }

    public Merge merge() {
        return merge;
    }

    public String stored() {
        return name().toLowerCase(Locale.ROOT);
    }

    static Optional<TrendSeries> ofStored(String stored) {
        for (TrendSeries series : values()) {
            if (series.stored().equals(stored)) {
                return Optional.of(series);
            }
        }
        return Optional.empty();
    }
}
