package io.paycallback.lease;

import io.paycallback.lease.LeasedRow;

import java.util.ArrayList;
import java.util.List;

/**
 * What a committed transaction leaves to do: tell the log what it wrote, and hand over the rows it wrote already
 * leased, so a worker processes them at once.
 */
@FunctionalInterface
public interface AfterCommit {

    AfterCommit NOTHING = List::of;

    /** Runs right after the commit, never before; @return rows to process now */
    List<LeasedRow> run();

    static AfterCommit all(List<AfterCommit> steps) {
        return () -> {
            List<LeasedRow> handOff = new ArrayList<>();
            for (AfterCommit step : steps) {
                handOff.addAll(step.run());
            }
            return handOff;
        };
    }
}
