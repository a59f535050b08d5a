package io.paycallback.delivery;

import io.paycallback.config.RequeueConfig;
import io.paycallback.db.MySqlErrors;
import io.paycallback.outbox.EventType;
import io.paycallback.outbox.OutboxConfig;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;

import java.net.URI;
import java.time.Clock;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The delivery package's side of what an operator does with a destination (the operator's use case is
 * ops/DestinationActions): its read model, disable, enable, probe now, and replay since a time (a dry run first). Every
 * change is audited by the caller's {@link ActionAudit} inside the transaction that makes it.
 */
@ApplicationScoped
public class DestinationControls {

    static final String LAST_ID = "SELECT COALESCE(MAX(id), 0) FROM outbox";
    // Delivered and dead events of the destination since the time. next_retry_at is never before created_at, so the
    // index range on it holds every row created since, and created_at then narrows it.
    static final String COUNT_RESENT = """
            SELECT COUNT(*) FROM outbox
            WHERE destination = ? AND status IN (1, 2) AND next_retry_at >= ? AND created_at >= ? AND id <= ?""";
    static final String RESENT_IDS = """
            SELECT id FROM outbox
            WHERE destination = ? AND status IN (1, 2) AND next_retry_at >= ? AND created_at >= ? AND id <= ?
            ORDER BY id LIMIT ?""";
    // The try that delivered an event is kept on its row: it moves to delivery_attempts before the row is reset.
    static final String KEEP_DELIVERED_TRY = """
            INSERT INTO delivery_attempts (outbox_id, try_number, destination, attempted_at, result, http_status, latency_ms,
                                           response_length, response_body)
            SELECT id, retry_count + 1, destination, delivered_at, 'delivered', delivered_http_status, delivered_latency_ms,
                   delivered_response_length, delivered_response_body
            FROM outbox WHERE id IN (%s) AND status = 1 AND delivered_at IS NOT NULL""";
    static final String RESEND = """
            UPDATE outbox SET status = 0, retry_count = 0, next_retry_at = NOW(3), lease_token = NULL, last_error = NULL,
                delivered_at = NULL, delivered_http_status = NULL, delivered_latency_ms = NULL,
                delivered_response_length = NULL, delivered_response_body = NULL, updated_at = NOW(3)
            WHERE id IN (%s) AND status IN (1, 2)""";
    static final String DESTINATIONS = "SELECT DISTINCT destination FROM outbox";
    // One row per event (source, type) of the destination's types since the time, from any other destination's rows,
    // where the destination has none.
    static final String ADDED_FROM = """
            FROM outbox o
            WHERE o.destination IN (%s) AND o.status IN (0, 1, 2) AND o.next_retry_at >= ? AND o.created_at >= ?
              AND o.id <= ? AND o.type IN (%s)
              AND NOT EXISTS (SELECT 1 FROM outbox d WHERE d.source = o.source AND d.type = o.type AND d.destination = ?)""";
    static final String COUNT_ADDED = "SELECT COUNT(DISTINCT o.source, o.type) ";
    static final String ADDED_IDS = "SELECT MIN(o.id) AS id ";
    static final String ADDED_GROUPS = " GROUP BY o.source, o.type ORDER BY id LIMIT ?";
    static final String ADD = """
            INSERT INTO outbox (source, type, destination, merchant_id, out_trade_no, payload, status, retry_count,
                                next_retry_at, created_at, updated_at)
            SELECT source, type, ?, merchant_id, out_trade_no, payload, 0, 0, NOW(3), NOW(3), NOW(3)
            FROM outbox WHERE id IN (%s)""";

    private final Pool pool;
    private final Destinations destinations;
    private final DestinationCircuits circuits;
    private final DestinationBacklog backlog;
    private final OutboxRelay relay;
    private final Clock clock;
    private final Map<String, List<String>> typesOf = new TreeMap<>();
    private final int batchSize;

    public DestinationControls(Pool pool, Destinations destinations, DestinationCircuits circuits,
                                 DestinationBacklog backlog, OutboxRelay relay, Clock clock, OutboxConfig outboxConfig,
                                 RequeueConfig config) {
        this.pool = pool;
        this.destinations = destinations;
        this.circuits = circuits;
        this.backlog = backlog;
        this.relay = relay;
        this.clock = clock;
        this.batchSize = Math.max(1, config.requeueBatchSize());
        outboxConfig.destinations().forEach((name, destination) -> typesOf.put(name, destination.events().stream()
                .map(String::trim).filter(wire -> EventType.fromWire(wire).isPresent()).toList()));
    }

    // ---- the read model --------------------------------------------------------------------------------------------

    /** Every configured destination, by name, read fresh from the database. */
    public Uni<List<DestinationView>> list() {
        return circuits.refresh().chain(() -> {
            Uni<List<DestinationView>> views = Uni.createFrom().item(new ArrayList<>());
            for (Destinations.Destination destination : destinations.all()) {
                views = views.flatMap(list -> view(destination).map(view -> {
                    list.add(view);
                    return list;
                }));
            }
            return views.map(Collections::unmodifiableList);
        });
    }

    /** One destination; empty when it is not configured. */
    public Uni<Optional<DestinationView>> get(String name) {
        Optional<Destinations.Destination> destination = destinations.get(name);
        return destination.isEmpty() ? Uni.createFrom().item(Optional.empty())
                : circuits.refresh().chain(() -> view(destination.get())).map(Optional::of);
    }

    private Uni<DestinationView> view(Destinations.Destination destination) {
        String name = destination.name();
        return backlog.of(name).flatMap(pending -> backlog.lastDelivered(name).map(lastDelivered -> {
            Optional<DestinationCircuits.Circuit> circuit = circuits.circuit(name);
            FailureWindow.Counts window = circuits.window(name);
            return new DestinationView(name, destination.endpoint().shown(), circuits.state(name),
                    circuit.map(DestinationCircuits.Circuit::since).orElse(null),
                    circuit.map(DestinationCircuits.Circuit::reason).orElse(null),
                    circuit.map(DestinationCircuits.Circuit::nextProbeAt).orElse(null), lastDelivered, window.tries(),
                    window.failureRatio(), pending.pending(), pending.parked(), pending.oldestAt(), pending.nextDueAt(),
                    destination.signer().isPresent(),
                    destination.signer().flatMap(signer -> signer.previousUntil(clock.instant())).orElse(null),
                    destination.concurrency(),
                    destination.rateLimit().isPresent() ? destination.rateLimit().getAsDouble() : null);
        }));
    }

    /** The URL without what may hold a credential (user info, query, fragment). */
    static String endpoint(String url) {
        try {
            URI uri = URI.create(url);
            return uri.getScheme() + "://" + uri.getHost() + (uri.getPort() < 0 ? "" : ":" + uri.getPort())
                    + (uri.getPath() == null ? "" : uri.getPath());
        } catch (IllegalArgumentException notAUri) {
            return "(not a URL)";
        }
    }

    // ---- disable, enable, probe ------------------------------------------------------------------------------------

    /** Stops delivering to the destination on every instance; its events wait, parked, until it is enabled. */
    public Uni<DestinationResults.Change> disable(String name, ActionAudit audit) {
        if (destinations.get(name).isEmpty()) {
            return Uni.createFrom().item(new DestinationResults.Change.Unknown(name));
        }
        return circuits.disableByOperator(name, "disabled by an operator",
                        tx -> audit.write(tx, 1))
                .flatMap(entry -> changed(name, entry));
    }

    /** Delivers to the destination again: its circuit closes and its waiting events are due at once. */
    public Uni<DestinationResults.Change> enable(String name, ActionAudit audit) {
        if (destinations.get(name).isEmpty()) {
            return Uni.createFrom().item(new DestinationResults.Change.Unknown(name));
        }
        return circuits.enable(name, tx -> audit.write(tx, 1))
                .flatMap(entry -> changed(name, entry));
    }

    private Uni<DestinationResults.Change> changed(String name, Optional<Long> entry) {
        return get(name).map(view -> entry.isPresent()
                ? new DestinationResults.Change.Changed(view.orElseThrow(), entry.get())
                : new DestinationResults.Change.Unchanged(view.orElseThrow()));
    }

    /**
     * Sends the oldest waiting event of an open or disabled destination now: delivered, its circuit closes (a disabled
     * destination is enabled) and its waiting events are due; not delivered, the event waits again, its try unspent.
     * The request is audited before it is sent, in a transaction of its own.
     */
    public Uni<DestinationResults.Probe> probeNow(String name, ActionAudit audit) {
        if (destinations.get(name).isEmpty()) {
            return Uni.createFrom().item(new DestinationResults.Probe.Unknown(name));
        }
        return circuits.refresh().chain(() -> {
            if (circuits.state(name).delivers()) {
                return get(name).map(view -> (DestinationResults.Probe) new DestinationResults.Probe.NotNeeded(view.orElseThrow()));
            }
            return pool.withTransaction(tx -> audit.write(tx, 1))
                    .flatMap(entry -> relay.probe(name, true).flatMap(outcome -> get(name).map(Optional::orElseThrow)
                            .map(view -> probed(view, outcome, entry))));
        });
    }

    private static DestinationResults.Probe probed(DestinationView view, OutboxRelay.ProbeOutcome outcome, long entry) {
        if (outcome instanceof OutboxRelay.ProbeOutcome.Delivered delivered) {
            return new DestinationResults.Probe.Delivered(view, delivered.attempt().httpStatus(),
                    delivered.attempt().latencyMillis(), entry);
        }
        if (outcome instanceof OutboxRelay.ProbeOutcome.Failed failed) {
            DeliveryAttempt attempt = failed.attempt();
            return new DestinationResults.Probe.Failed(view, attempt.result(), attempt.httpStatus(), attempt.error(),
                    attempt.latencyMillis(), entry);
        }
        return new DestinationResults.Probe.NothingToSend(view);
    }

    // ---- replay ----------------------------------------------------------------------------------------------------

    /**
     * The dry run of a replay since {@code since} (the database's clock): how many of the destination's delivered or
     * dead events would be sent again, and how many events of its types it has no row for would be added (a
     * destination added later, a consumer restored from a backup). Events housekeeping archived are not replayed.
     */
    public Uni<DestinationResults.ReplayPreview> previewReplay(String name, LocalDateTime since) {
        if (destinations.get(name).isEmpty()) {
            return Uni.createFrom().item(new DestinationResults.ReplayPreview.Unknown(name));
        }
        return pool.preparedQuery(LAST_ID).execute().map(rows -> rows.iterator().next().getLong(0))
                .flatMap(upToId -> previewReplay(name, since, upToId));
    }

    /** The same dry run over the events up to an earlier one's last id: the plan a replay of that dry run carries out. */
    public Uni<DestinationResults.ReplayPreview> previewReplay(String name, LocalDateTime since, long upToId) {
        if (destinations.get(name).isEmpty()) {
            return Uni.createFrom().item(new DestinationResults.ReplayPreview.Unknown(name));
        }
        return count(COUNT_RESENT, Tuple.of(name, since, since, upToId)).flatMap(resent ->
                sources(name).flatMap(sources -> sources.isEmpty() || typesOf.get(name).isEmpty()
                                ? Uni.createFrom().item(0L)
                                : count(COUNT_ADDED + added(sources, name), addedParams(sources, name, since, upToId)))
                        .map(added -> (DestinationResults.ReplayPreview) new DestinationResults.ReplayPreview.Planned(
                                new DestinationResults.ReplayPlan(name, since, upToId, resent, added))));
    }

    /**
     * Carries out a dry run's plan: in transactions of {@code paycallback.admin.requeue-batch-size} rows, the
     * destination's delivered and dead events since the time pending again with fresh tries (a delivered try is kept,
     * moved to the attempts), then the missing events written for it, all due at once and under one audit entry whose
     * row count grows with each batch. Rows written after the dry run are never swept in.
     */
    public Uni<DestinationResults.Replay> replay(DestinationResults.ReplayPlan plan, ActionAudit audit) {
        if (destinations.get(plan.destination()).isEmpty()) {
            return Uni.createFrom().item(new DestinationResults.Replay.Unknown(plan.destination()));
        }
        Progress progress = new Progress();
        return resend(plan, audit, progress)
                .chain(() -> sources(plan.destination()))
                .chain(sources -> sources.isEmpty() || typesOf.get(plan.destination()).isEmpty()
                        ? Uni.createFrom().voidItem() : add(plan, sources, audit, progress, 0))
                .map(done -> progress.entry == null ? new DestinationResults.Replay.NothingToReplay(plan)
                        : new DestinationResults.Replay.Replayed(plan, progress.resent, progress.added, progress.batches,
                        progress.entry));
    }

    /** How far a replay has come; only touched by its own sequential steps. */
    private static final class Progress {
        Long entry;
        long resent;
        long added;
        int batches;
    }

    private Uni<Void> resend(DestinationResults.ReplayPlan plan, ActionAudit audit, Progress progress) {
        Tuple params = Tuple.of(plan.destination(), plan.since(), plan.since(), plan.upToId()).addInteger(batchSize);
        return pool.preparedQuery(RESENT_IDS).execute(params).flatMap(rows -> {
            List<Long> ids = ids(rows, "id");
            if (ids.isEmpty()) {
                return Uni.createFrom().voidItem();
            }
            String in = placeholders(ids.size());
            return pool.withTransaction(tx -> tx.preparedQuery(KEEP_DELIVERED_TRY.formatted(in)).execute(Tuple.from(ids))
                            .chain(() -> tx.preparedQuery(RESEND.formatted(in)).execute(Tuple.from(ids)))
                            .flatMap(updated -> audited(tx, audit, progress, updated.rowCount())
                                    .map(ignored -> updated.rowCount())))
                    .flatMap(count -> {
                        progress.resent += count;
                        progress.batches++;
                        return ids.size() < batchSize ? Uni.createFrom().voidItem() : resend(plan, audit, progress);
                    });
        });
    }

    private Uni<Void> add(DestinationResults.ReplayPlan plan, List<String> sources, ActionAudit audit,
                          Progress progress, int raced) {
        String name = plan.destination();
        Tuple params = addedParams(sources, name, plan.since(), plan.upToId()).addInteger(batchSize);
        return pool.preparedQuery(ADDED_IDS + added(sources, name) + ADDED_GROUPS).execute(params).flatMap(rows -> {
            List<Long> ids = ids(rows, "id");
            if (ids.isEmpty()) {
                return Uni.createFrom().voidItem();
            }
            Tuple insert = Tuple.of(name);
            ids.forEach(insert::addLong);
            return pool.withTransaction(tx -> tx.preparedQuery(ADD.formatted(placeholders(ids.size()))).execute(insert)
                            .flatMap(written -> audited(tx, audit, progress, written.rowCount())
                                    .map(ignored -> written.rowCount())))
                    .flatMap(count -> {
                        progress.added += count;
                        progress.batches++;
                        return ids.size() < batchSize ? Uni.createFrom().voidItem() : add(plan, sources, audit, progress, 0);
                    })
                    // The event was just written for the destination by its own transaction: the next batch skips it.
                    .onFailure(failure -> MySqlErrors.isDuplicateKey(failure) && raced < 3)
                    .recoverWithUni(() -> add(plan, sources, audit, progress, raced + 1));
        });
    }

    private static Uni<Long> audited(SqlClient tx, ActionAudit audit, Progress progress, long rows) {
        return audit.write(tx, rows).invoke(entry -> progress.entry = entry);
    }

    /** Every other destination events were written for, the log destination included. */
    private Uni<List<String>> sources(String name) {
        return pool.preparedQuery(DESTINATIONS).execute().map(rows -> {
            List<String> sources = new ArrayList<>();
            for (Row row : rows) {
                if (!name.equals(row.getString("destination"))) {
                    sources.add(row.getString("destination"));
                }
            }
            return sources;
        });
    }

    private String added(List<String> sources, String name) {
        return ADDED_FROM.formatted(placeholders(sources.size()), placeholders(typesOf.get(name).size()));
    }

    private Tuple addedParams(List<String> sources, String name, LocalDateTime since, long upToId) {
        Tuple params = Tuple.tuple();
        sources.forEach(params::addString);
        params.addLocalDateTime(since).addLocalDateTime(since).addLong(upToId);
        typesOf.get(name).forEach(params::addString);
        return params.addString(name);
    }

    private Uni<Long> count(String sql, Tuple params) {
        return pool.preparedQuery(sql).execute(params).map(rows -> rows.iterator().next().getLong(0));
    }

    private static List<Long> ids(Iterable<Row> rows, String column) {
        List<Long> ids = new ArrayList<>();
        rows.forEach(row -> ids.add(row.getLong(column)));
        return ids;
    }

    private static String placeholders(int count) {
        return String.join(", ", Collections.nCopies(count, "?"));
    }
}
