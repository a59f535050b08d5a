package io.paycallback.delivery;

import io.paycallback.lease.RowLease;
import io.paycallback.lease.LeaseConfig;
import io.paycallback.outbox.Outbox;
import io.paycallback.outbox.OutboxConfig;
import io.paycallback.outbox.PendingEvent;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * The events of a destination that takes nothing now. They are parked (lease_token = {@link Outbox#PARKED}, due
 * {@code parked-for} ahead and pushed on by every sweep before they come due) and spend no tries; when it takes events
 * again they are due at once. Every statement on a destination's pending events
 * is a range of the index (destination, status, next_retry_at), so a big backlog of parked events costs the scans of
 * other destinations nothing. Also holds back the events a relay has in hand without sending them.
 */
@ApplicationScoped
public class ParkedEvents {

    // Rows under a live lease are left to their holder: they are parked by the next sweep if their try fails. Rows
    // due later than half the parking time are left too: a later sweep parks them before they come due. So are the
    // parked rows themselves until they near their time, when they are pushed on.
    static final String PARK_PENDING = """
            UPDATE outbox SET lease_token = ?, next_retry_at = DATE_ADD(NOW(3), INTERVAL ? MICROSECOND), updated_at = NOW(3)
            WHERE destination = ? AND status = 0 AND next_retry_at < DATE_ADD(NOW(3), INTERVAL ? MICROSECOND)
              AND (lease_token IS NULL OR lease_token = ? OR next_retry_at <= NOW(3))
            ORDER BY next_retry_at LIMIT ?""";
    static final String RELEASE_PARKED = """
            UPDATE outbox SET next_retry_at = NOW(3), lease_token = NULL, updated_at = NOW(3)
            WHERE destination = ? AND status = 0 AND lease_token = ? LIMIT ?""";
    static final String PARK_HELD = """
            UPDATE outbox SET lease_token = ?, next_retry_at = DATE_ADD(NOW(3), INTERVAL ? MICROSECOND), updated_at = NOW(3)
            WHERE id IN (%s) AND (id, lease_token) IN (%s)""";
    static final String DEFER_HELD = """
            UPDATE outbox SET next_retry_at = DATE_ADD(NOW(3), INTERVAL ? MICROSECOND), lease_token = NULL, updated_at = NOW(3)
            WHERE id IN (%s) AND (id, lease_token) IN (%s)""";
    static final String OLDEST_PARKED = """
            SELECT id FROM outbox WHERE destination = ? AND status = 0 AND lease_token = ? ORDER BY id LIMIT 1""";
    static final String LEASE_PARKED = """
            UPDATE outbox SET lease_token = ?, next_retry_at = DATE_ADD(NOW(3), INTERVAL ? MICROSECOND), updated_at = NOW(3)
            WHERE id = ? AND status = 0 AND lease_token = ?""";
    static final String LEASED_ROW = """
            SELECT id, source, type, destination, merchant_id, out_trade_no, payload, traceparent, retry_count,
                   TIMESTAMPDIFF(MICROSECOND, created_at, NOW(3)) AS age_us
            FROM outbox WHERE id = ? AND lease_token = ?""";

    private final Pool pool;
    private final int chunk;
    private final long parkedMicros;

    public ParkedEvents(Pool pool, LeaseConfig lease, OutboxConfig config) {
        this.pool = pool;
        this.chunk = Math.max(1, lease.batchSize());
        this.parkedMicros = TimeUnit.MICROSECONDS.convert(config.parkedFor());
    }

    /**
     * Parks the pending events of the destination that are due within half the parking time, and pushes on the parked
     * ones that near their time, in short statements; @return how many
     */
    public Uni<Long> parkAll(String destination) {
        return repeat(PARK_PENDING, Tuple.of(Outbox.PARKED, parkedMicros, destination, parkedMicros / 2, Outbox.PARKED)
                .addInteger(chunk), 0);
    }

    /** Makes every parked event of the destination due now, in short statements; @return how many */
    public Uni<Long> releaseAll(String destination) {
        return repeat(RELEASE_PARKED, Tuple.of(destination, Outbox.PARKED, chunk), 0);
    }

    private Uni<Long> repeat(String sql, Tuple params, long done) {
        return pool.preparedQuery(sql).execute(params).flatMap(updated -> updated.rowCount() < chunk
                ? Uni.createFrom().item(done + updated.rowCount())
                : repeat(sql, params, done + updated.rowCount()));
    }

    /**
     * Parks events this instance holds the leases of, in the caller's transaction, without counting a try; a row whose
     * lease is gone is somebody else's and stays as it is.
     */
    public Uni<Void> park(SqlClient client, List<RowLease> held) {
        Tuple params = Tuple.tuple().addString(Outbox.PARKED).addLong(parkedMicros);
        return client.preparedQuery(held(PARK_HELD, held.size())).execute(fenced(params, held)).replaceWithVoid();
    }

    /** Gives events this instance holds back for another try after {@code delay}, without counting this one. */
    public Uni<Void> defer(SqlClient client, List<RowLease> held, Duration delay) {
        Tuple params = Tuple.tuple().addLong(TimeUnit.MICROSECONDS.convert(delay));
        return client.preparedQuery(held(DEFER_HELD, held.size())).execute(fenced(params, held)).replaceWithVoid();
    }

    private static String held(String sql, int rows) {
        return sql.formatted(String.join(", ", Collections.nCopies(rows, "?")),
                String.join(", ", Collections.nCopies(rows, "(?, ?)")));
    }

    private static Tuple fenced(Tuple params, List<RowLease> held) {
        held.forEach(lease -> params.addLong(lease.id()));
        held.forEach(lease -> params.addLong(lease.id()).addString(lease.token()));
        return params;
    }

    /** A parked event leased to be sent as a destination's probe. */
    public record Probe(RowLease lease, PendingEvent event) {
    }

    /** Leases the destination's oldest parked event; empty when none is parked (or another instance took it). */
    public Uni<Optional<Probe>> leaseOldest(String destination, Duration leaseTime) {
        return pool.preparedQuery(OLDEST_PARKED).execute(Tuple.of(destination, Outbox.PARKED)).flatMap(rows -> {
            var found = rows.iterator();
            if (!found.hasNext()) {
                return Uni.createFrom().item(Optional.<Probe>empty());
            }
            long id = found.next().getLong("id");
            String token = UUID.randomUUID().toString();
            return pool.preparedQuery(LEASE_PARKED)
                    .execute(Tuple.of(token, TimeUnit.MICROSECONDS.convert(leaseTime), id, Outbox.PARKED))
                    .flatMap(leased -> leased.rowCount() == 0 ? Uni.createFrom().item(Optional.<Probe>empty())
                            : pool.preparedQuery(LEASED_ROW).execute(Tuple.of(id, token)).map(read -> {
                                var row = read.iterator();
                                return row.hasNext() ? Optional.of(probe(row.next(), token)) : Optional.<Probe>empty();
                            }));
        });
    }

    private static Probe probe(Row row, String token) {
        return new Probe(new RowLease(Outbox.TABLE, row.getLong("id"), token, row.getInteger("retry_count")),
                PendingEvent.of(row));
    }
}
