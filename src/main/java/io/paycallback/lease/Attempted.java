package io.paycallback.lease;

import io.paycallback.tracing.SpanAttribute;
import io.paycallback.tracing.Traced;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;

/** The tries of one batch, and what their committed transactions leave to do. */
public record Attempted(List<Tried> rows, AfterCommit next) {

    public static Attempted done(RowLease lease, String result) {
        return new Attempted(List.of(new Tried.Done(lease, result)), AfterCommit.NOTHING);
    }

    public static Attempted done(RowLease lease, String result, AfterCommit next) {
        return new Attempted(List.of(new Tried.Done(lease, result)), next);
    }

    public static Attempted dead(RowLease lease, String reason, AfterCommit next) {
        return new Attempted(List.of(new Tried.Dead(lease, reason)), next);
    }

    public static Attempted of(Tried tried) {
        return new Attempted(List.of(tried), AfterCommit.NOTHING);
    }

    /**
     * Each row tried on its own, for tables whose rows share nothing; a row whose try throws is that row's failed try,
     * not the batch's.
     */
    public static Attempted eachAlone(List<LeasedRow> batch, Function<RowLease, Attempted> attempt) {
        List<Attempted> tried = new ArrayList<>(batch.size());
        for (LeasedRow row : batch) {
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

    /**
     * A try with its span current on this thread (the provider calls made meanwhile are its children, its log lines
     * carry its trace id), the span ended with what each row came to, or "failed" when the try threw.
     */
    public static Attempted traced(Traced span, Supplier<Attempted> attempt) {
        try (Traced.Current ignored = span.makeCurrent()) {
            Attempted attempted = attempt.get();
            attempted.rows().forEach(tried -> span.set(SpanAttribute.OUTCOME, outcome(tried)));
            return attempted;
        } catch (RuntimeException failure) {
            span.set(SpanAttribute.OUTCOME, "failed").failed(failure.getClass().getSimpleName());
            throw failure;
        } finally {
            span.end();
        }
    }

    private static String outcome(Tried tried) {
        if (tried instanceof Tried.Done done) {
            return done.result();
        }
        if (tried instanceof Tried.Dead) {
            return "dead";
        }
        return tried instanceof Tried.Lost ? "lost" : "failed";
    }
}
