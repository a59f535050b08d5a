package io.paycallback.lease;

import io.paycallback.lease.Lease;
import io.paycallback.lease.Leased;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/** The tries of one batch, and what their committed transactions leave to do. */
public record Attempted(List<Tried> rows, AfterCommit next) {

    public static Attempted done(Lease lease, String result) {
        return new Attempted(List.of(new Tried.Done(lease, result)), AfterCommit.NOTHING);
    }

    public static Attempted done(Lease lease, String result, AfterCommit next) {
        return new Attempted(List.of(new Tried.Done(lease, result)), next);
    }

    public static Attempted dead(Lease lease, String reason, AfterCommit next) {
        return new Attempted(List.of(new Tried.Dead(lease, reason)), next);
    }

    public static Attempted of(Tried tried) {
        return new Attempted(List.of(tried), AfterCommit.NOTHING);
    }

    /**
     * Each row tried on its own, for tables whose rows share nothing; a row whose try throws is that row's failed try,
     * not the batch's.
     */
    public static Attempted eachAlone(List<Leased> batch, Function<Lease, Attempted> attempt) {
        List<Attempted> tried = new ArrayList<>(batch.size());
        for (Leased row : batch) {
            try {
                tried.add(attempt.apply(row.lease()));
            } catch (RuntimeException failure) {
                tried.add(of(new Tried.Failed(row.lease(), failure)));
            }
        }
        return all(tried);
    }

    public static Attempted all(List<Attempted> parts) {
        List<Tried> rows = new ArrayList<>();
        List<AfterCommit> next = new ArrayList<>();
        for (Attempted part : parts) {
            rows.addAll(part.rows());
            next.add(part.next());
        }
        return new Attempted(rows, AfterCommit.all(next));
    }
}
