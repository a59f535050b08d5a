package io.paycallback.delivery;

import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;

/**
 * The tries of one destination and how many failed, over the last window, on this instance: ten buckets of a tenth of
 * the window each, so old tries drop out in steps without keeping every try. Also how many tries in a row failed
 * last, which tells a destination that just stopped answering long before the window's ratio does (the window still
 * holds the successes of before).
 */
final class FailureWindow {

    private static final int BUCKETS = 10;

    private final Clock clock;
    private final long bucketMillis;
    private final long[] bucketOf = new long[BUCKETS];
    private final int[] tries = new int[BUCKETS];
    private final int[] failures = new int[BUCKETS];
    private int failedInARow;

    FailureWindow(Duration window, Clock clock) {
        this.clock = clock;
        this.bucketMillis = Math.max(1, window.toMillis() / BUCKETS);
        Arrays.fill(bucketOf, -1);
    }

    /** The tries in the window, how many of them failed, and how many of the last ones failed in a row. */
    record Counts(int tries, int failures, int failedInARow) {

        double failureRatio() {
            return tries == 0 ? 0 : (double) failures / tries;
        }
    }

    synchronized Counts record(boolean failed) {
        long bucket = clock.millis() / bucketMillis;
        int slot = (int) (bucket % BUCKETS);
        if (bucketOf[slot] != bucket) {
            bucketOf[slot] = bucket;
            tries[slot] = 0;
            failures[slot] = 0;
        }
        tries[slot]++;
        if (failed) {
            failures[slot]++;
            failedInARow++;
        } else {
            failedInARow = 0;
        }
        return counts(bucket);
    }

    synchronized Counts counts() {
        return counts(clock.millis() / bucketMillis);
    }

    /** A closed circuit starts over: the tries that opened it say nothing about the destination now. */
    synchronized void clear() {
        Arrays.fill(bucketOf, -1);
        failedInARow = 0;
    }

    private Counts counts(long now) {
        int allTries = 0;
        int allFailures = 0;
        for (int slot = 0; slot < BUCKETS; slot++) {
            if (bucketOf[slot] > now - BUCKETS) {
                allTries += tries[slot];
                allFailures += failures[slot];
            }
        }
        return new Counts(allTries, allFailures, failedInARow);
    }
}
