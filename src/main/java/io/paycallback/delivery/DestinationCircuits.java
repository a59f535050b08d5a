package io.paycallback.delivery;

import io.paycallback.config.PayCallbackConfig;
import io.paycallback.db.MySqlErrors;
import io.paycallback.lease.AfterCommit;
import io.paycallback.lease.LeaseConfig;
import io.paycallback.lease.Worker;
import io.paycallback.outbox.DestinationGate;
import io.paycallback.outbox.DownstreamEvent;
import io.paycallback.outbox.Outbox;
import io.paycallback.outbox.Subject;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

import java.time.Clock;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Each destination's circuit, kept in the database (table {@code destination_circuits}) so every instance sees the
 * same one, and read back by each instance every scan interval. Closed, its events are delivered as they come. Each
 * instance counts its own tries of the destination over the breaker's window; when at least {@code min-tries} of them
 * are in it and {@code failure-ratio} of them failed, or its last {@code min-tries} tries all failed (a destination
 * that just stopped answering, whose earlier successes still fill the window), it opens the circuit for all: the destination's pending events
 * are parked and spend no tries, new ones are written parked, and every {@code probe-interval} one instance sends the
 * oldest of them as a probe (half-open while it is under way). A delivered probe closes the circuit and its events are
 * due at once; a circuit still open {@code disable-after} after it opened disables the destination, as does a 410
 * Gone, each with an alert event. Only an operator enables a disabled destination again.
 */
@ApplicationScoped
public class DestinationCircuits implements DestinationGate {

    private static final Logger LOG = Logger.getLogger(DestinationCircuits.class);

    static final String CREATE = """
            INSERT INTO destination_circuits (destination, state, since, updated_at) VALUES (?, 0, NOW(3), NOW(3))""";
    static final String READ_ALL = """
            SELECT destination, state, since, next_probe_at, probe_until > NOW(3) AS probing, reason
            FROM destination_circuits""";
    static final String OPEN = """
            UPDATE destination_circuits SET state = 1, since = NOW(3), next_probe_at = DATE_ADD(NOW(3), INTERVAL ? MICROSECOND),
                probe_until = NULL, reason = ?, updated_at = NOW(3)
            WHERE destination = ? AND state = 0""";
    static final String CLAIM_DUE_PROBE = """
            UPDATE destination_circuits SET probe_until = DATE_ADD(NOW(3), INTERVAL ? MICROSECOND),
                next_probe_at = DATE_ADD(NOW(3), INTERVAL ? MICROSECOND), updated_at = NOW(3)
            WHERE destination = ? AND state = 1 AND next_probe_at <= NOW(3) AND (probe_until IS NULL OR probe_until < NOW(3))""";
    static final String CLAIM_PROBE_NOW = """
            UPDATE destination_circuits SET probe_until = DATE_ADD(NOW(3), INTERVAL ? MICROSECOND),
                next_probe_at = IF(state = 1, DATE_ADD(NOW(3), INTERVAL ? MICROSECOND), NULL), updated_at = NOW(3)
            WHERE destination = ? AND state IN (1, 3) AND (probe_until IS NULL OR probe_until < NOW(3))""";
    static final String STATE = "SELECT state FROM destination_circuits WHERE destination = ?";
    static final String CLOSE = """
            UPDATE destination_circuits SET state = 0, since = NOW(3), next_probe_at = NULL, probe_until = NULL,
                reason = NULL, updated_at = NOW(3)
            WHERE destination = ? AND state = ?""";
    static final String PROBE_FAILED = """
            UPDATE destination_circuits SET probe_until = NULL, reason = ?, updated_at = NOW(3)
            WHERE destination = ? AND state = ?""";
    static final String PROBE_SKIPPED = """
            UPDATE destination_circuits SET probe_until = NULL, updated_at = NOW(3) WHERE destination = ? AND state = ?""";
    static final String DISABLE = """
            UPDATE destination_circuits SET state = 3, since = NOW(3), next_probe_at = NULL, probe_until = NULL, reason = ?,
                updated_at = NOW(3)
            WHERE destination = ? AND state <> 3""";
    static final String DISABLE_OPEN_TOO_LONG = """
            UPDATE destination_circuits SET state = 3, since = NOW(3), next_probe_at = NULL, probe_until = NULL, reason = ?,
                updated_at = NOW(3)
            WHERE destination = ? AND state = 1 AND since <= DATE_SUB(NOW(3), INTERVAL ? MICROSECOND)""";
    static final String ENABLE = """
            UPDATE destination_circuits SET state = 0, since = NOW(3), next_probe_at = NULL, probe_until = NULL,
                reason = NULL, updated_at = NOW(3)
            WHERE destination = ? AND state <> 0""";

    private static final int REASON_LENGTH = 512;

    /**
     * One destination's circuit as last read.
     *
     * @param since       when it entered this state (the database's clock)
     * @param nextProbeAt when an open circuit is probed next; null otherwise
     * @param reason      why it is open or disabled; null when closed
     */
    public record Circuit(String destination, DestinationState state, LocalDateTime since, LocalDateTime nextProbeAt,
                         String reason) {
    }

    private final Pool pool;
    private final Outbox outbox;
    private final Worker worker;
    private final ParkedEvents parked;
    private final Destinations destinations;
    private final DestinationMetrics metrics;
    private final Clock clock;
    private final DeliveryConfig.Breaker breaker;
    private final long probeMicros;
    private final long probeLeaseMicros;
    private final Map<String, FailureWindow> windows = new ConcurrentHashMap<>();
    private volatile Map<String, Circuit> circuits = Map.of();
    private volatile boolean initialized;

    public DestinationCircuits(Pool pool, Outbox outbox, Worker worker, ParkedEvents parked, Destinations destinations,
                               DestinationMetrics metrics, Clock clock, LeaseConfig config) {
        this.pool = pool;
        this.outbox = outbox;
        this.worker = worker;
        this.parked = parked;
        this.destinations = destinations;
        this.metrics = metrics;
        this.clock = clock;
        this.breaker = destinations.breaker();
        this.probeMicros = TimeUnit.MICROSECONDS.convert(breaker.probeInterval());
        // A probe is one request: past its lease, another instance may probe again.
        this.probeLeaseMicros = TimeUnit.MICROSECONDS.convert(config.lease());
        destinations.all().forEach(destination -> windows.put(destination.name(),
                new FailureWindow(breaker.window(), clock)));
    }

    // ---- the gate and the cached state -----------------------------------------------------------------------------

    @Override
    public boolean accepts(String destination) {
        Circuit circuit = circuits.get(destination);
        return circuit == null || circuit.state().delivers();
    }

    /** As last read; a destination not configured, or not read yet, is closed. */
    public DestinationState state(String destination) {
        Circuit circuit = circuits.get(destination);
        return circuit == null ? DestinationState.CLOSED : circuit.state();
    }

    public Optional<Circuit> circuit(String destination) {
        return Optional.ofNullable(circuits.get(destination));
    }

    /** This instance's tries of the destination over the breaker's window. */
    public FailureWindow.Counts window(String destination) {
        FailureWindow window = windows.get(destination);
        return window == null ? new FailureWindow.Counts(0, 0, 0) : window.counts();
    }

    /** Creates the row of every configured destination that has none, then reads them all. */
    public Uni<Void> initialize() {
        Uni<Void> created = Uni.createFrom().voidItem();
        for (Destinations.Destination destination : destinations.all()) {
            created = created.chain(() -> pool.preparedQuery(CREATE).execute(Tuple.of(destination.name()))
                    .replaceWithVoid().onFailure(MySqlErrors::isDuplicateKey).recoverWithNull());
        }
        return created.chain(this::refresh).invoke(() -> initialized = true);
    }

    /** Whether every configured destination's row exists. */
    public boolean initialized() {
        return initialized;
    }

    /** Reads every circuit again, as another instance may have changed it. */
    public Uni<Void> refresh() {
        return pool.preparedQuery(READ_ALL).execute().invoke(rows -> {
            Map<String, Circuit> read = new HashMap<>();
            for (Row row : rows) {
                Circuit circuit = circuit(row);
                read.put(circuit.destination(), circuit);
            }
            circuits = Map.copyOf(read);
            read.values().forEach(circuit -> metrics.state(circuit.destination(), circuit.state()));
        }).replaceWithVoid();
    }

    private static Circuit circuit(Row row) {
        DestinationState state = switch (row.getInteger("state")) {
            case 0 -> DestinationState.CLOSED;
            case 3 -> DestinationState.DISABLED;
            default -> Boolean.TRUE.equals(row.getBoolean("probing")) ? DestinationState.HALF_OPEN : DestinationState.OPEN;
        };
        return new Circuit(row.getString("destination"), state, row.getLocalDateTime("since"),
                row.getLocalDateTime("next_probe_at"), row.getString("reason"));
    }

    private void mark(String destination, DestinationState state, String reason) {
        Map<String, Circuit> next = new HashMap<>(circuits);
        Circuit before = next.get(destination);
        next.put(destination, new Circuit(destination, state, before == null ? null : before.since(),
                before == null ? null : before.nextProbeAt(), reason));
        circuits = Map.copyOf(next);
        metrics.state(destination, state);
    }

    // ---- the window: tries as they end -----------------------------------------------------------------------------

    /**
     * Counts a try of the destination that ended (a probe's is not counted: it has its own rule); opens the circuit
     * when the window says so. Never blocks.
     */
    public void tried(String destination, boolean failed, String error) {
        FailureWindow window = windows.get(destination);
        if (window == null) {
            return;
        }
        FailureWindow.Counts counts = window.record(failed);
        if (!failed || state(destination) != DestinationState.CLOSED) {
            return;
        }
        if (counts.failedInARow() >= breaker.minTries()) {
            open(destination, "the last " + counts.failedInARow() + " tries failed; last: " + error);
        } else if (counts.tries() >= breaker.minTries() && counts.failureRatio() >= breaker.failureRatio()) {
            open(destination, counts.failures() + " of " + counts.tries() + " tries failed within "
                    + describe(breaker.window()) + "; last: " + error);
        }
    }

    private void open(String destination, String reason) {
        mark(destination, DestinationState.OPEN, reason);
        pool.preparedQuery(OPEN).execute(Tuple.of(probeMicros, truncate(reason), destination))
                .flatMap(opened -> {
                    if (opened.rowCount() == 1) {
                        LOG.warnf("Destination %s: circuit open, its events wait without spending tries; a probe every "
                                + "%s: %s", destination, breaker.probeInterval(), reason);
                    }
                    return parked.parkAll(destination);
                })
                .subscribe().with(count -> LOG.debugf("Destination %s: %d events parked", destination, count),
                        failure -> LOG.warnf("Destination %s: opening its circuit failed, the next failed try opens it "
                                + "again: %s", destination, failure.toString()));
    }

    // ---- probes ----------------------------------------------------------------------------------------------------

    /**
     * Takes the destination's probe, so no other instance sends one meanwhile: one that is due (its circuit open, the
     * interval passed), or with {@code now} (an operator's) at once, also of a disabled destination.
     *
     * @return the state the probe decides about; empty when there is nothing to probe now
     */
    public Uni<Optional<DestinationState>> claimProbe(String destination, boolean now) {
        Tuple params = Tuple.of(probeLeaseMicros, probeMicros, destination);
        return pool.preparedQuery(now ? CLAIM_PROBE_NOW : CLAIM_DUE_PROBE).execute(params).flatMap(claimed ->
                claimed.rowCount() == 0 ? Uni.createFrom().item(Optional.<DestinationState>empty())
                        : pool.preparedQuery(STATE).execute(Tuple.of(destination)).map(rows -> {
                            int state = rows.iterator().next().getInteger("state");
                            mark(destination, DestinationState.HALF_OPEN, reasonOf(destination));
                            return Optional.of(state == 3 ? DestinationState.DISABLED : DestinationState.OPEN);
                        }));
    }

    /** The probe was delivered: the circuit closes and the destination's parked events are due at once. */
    public Uni<Void> probeDelivered(String destination, DestinationState claimed) {
        return pool.preparedQuery(CLOSE).execute(Tuple.of(destination, code(claimed))).flatMap(closed -> {
            if (closed.rowCount() == 0) {
                return refresh();
            }
            recovered(destination, "a probe was delivered");
            return parked.releaseAll(destination).replaceWithVoid();
        });
    }

    /** Nothing was parked to send as the probe: the claim is given up, nothing else changes. */
    public Uni<Void> probeSkipped(String destination, DestinationState claimed) {
        return pool.preparedQuery(PROBE_SKIPPED).execute(Tuple.of(destination, code(claimed))).chain(this::refresh);
    }

    /**
     * The probe failed: the circuit stays as it was; one open for {@code disable-after} disables the destination,
     * with an alert.
     */
    public Uni<Void> probeFailed(String destination, DestinationState claimed, String error) {
        String reason = "probe failed: " + error;
        return pool.preparedQuery(PROBE_FAILED).execute(Tuple.of(truncate(reason), destination, code(claimed)))
                .chain(() -> claimed != DestinationState.OPEN ? Uni.createFrom().voidItem()
                        : disableWithAlert(destination, DISABLE_OPEN_TOO_LONG, Tuple.of(truncate(tooLong(reason)),
                                destination, TimeUnit.MICROSECONDS.convert(breaker.disableAfter())), tooLong(reason))
                        .replaceWithVoid())
                .chain(this::refresh);
    }

    // ---- disabling and enabling ------------------------------------------------------------------------------------

    /** The destination said it wants no more events (410 Gone): disabled for all instances, with an alert. */
    public Uni<Boolean> gone(String destination, String reason) {
        mark(destination, DestinationState.DISABLED, reason);
        return disableWithAlert(destination, DISABLE, Tuple.of(truncate(reason), destination), reason)
                .call(this::refresh);
    }

    /**
     * Disables the destination with an alert event to the destinations subscribed to alerts, in one transaction, then
     * parks its events. @return whether this call disabled it (false: it already was, or is no longer open)
     */
    private Uni<Boolean> disableWithAlert(String destination, String sql, Tuple params, String reason) {
        DownstreamEvent alert = new DownstreamEvent.Alert("destination:" + destination + ":disabled:" + clock.millis(),
                Subject.Trade.order(PayCallbackConfig.DEFAULT_MERCHANT, null),
                "destination " + destination + " disabled, its events wait for an operator: " + reason);
        return pool.withTransaction(tx -> tx.preparedQuery(sql).execute(params).flatMap(updated ->
                        updated.rowCount() == 0 ? Uni.createFrom().item(Optional.<AfterCommit>empty())
                                : outbox.emitAll(tx, List.of(alert)).map(Optional::<AfterCommit>of)))
                .flatMap(emitted -> {
                    if (emitted.isEmpty()) {
                        return Uni.createFrom().item(false);
                    }
                    LOG.errorf("Destination %s disabled, its events wait for an operator: %s", destination, reason);
                    mark(destination, DestinationState.DISABLED, reason);
                    handOver(emitted.get());
                    return parked.parkAll(destination).replaceWith(true);
                });
    }

    /** What an operator's action writes in the transaction that changes the circuit: its audit entry. */
    @FunctionalInterface
    interface InTransaction<T> {
        Uni<T> write(SqlClient transaction);
    }

    /** An operator's disable: no alert (the audit log has it), events parked. @return whether it changed */
    <T> Uni<Optional<T>> disableByOperator(String destination, String reason, InTransaction<T> audit) {
        Tuple params = Tuple.of(truncate(reason), destination);
        return pool.withTransaction(tx -> tx.preparedQuery(DISABLE).execute(params).flatMap(updated ->
                        updated.rowCount() == 0 ? Uni.createFrom().item(Optional.<T>empty())
                                : audit.write(tx).map(Optional::of)))
                .call(changed -> {
                    if (changed.isEmpty()) {
                        return Uni.createFrom().voidItem();
                    }
                    LOG.warnf("Destination %s disabled by an operator: its events wait", destination);
                    mark(destination, DestinationState.DISABLED, reason);
                    return parked.parkAll(destination);
                });
    }

    /** An operator's enable: closed, its parked events due at once. @return whether it changed */
    <T> Uni<Optional<T>> enable(String destination, InTransaction<T> audit) {
        return pool.withTransaction(tx -> tx.preparedQuery(ENABLE).execute(Tuple.of(destination)).flatMap(updated ->
                        updated.rowCount() == 0 ? Uni.createFrom().item(Optional.<T>empty())
                                : audit.write(tx).map(Optional::of)))
                .call(changed -> {
                    if (changed.isEmpty()) {
                        return Uni.createFrom().voidItem();
                    }
                    recovered(destination, "enabled by an operator");
                    return parked.releaseAll(destination);
                });
    }

    private void recovered(String destination, String how) {
        FailureWindow window = windows.get(destination);
        if (window != null) {
            window.clear();
        }
        mark(destination, DestinationState.CLOSED, null);
        metrics.recovered(destination);
        LOG.infof("Destination %s: circuit closed (%s), its waiting events are due", destination, how);
    }

    // ---- the sweep -------------------------------------------------------------------------------------------------

    /**
     * Parks what a destination that takes nothing still has pending (rows whose try failed meanwhile, rows an older
     * release wrote), and makes due what a closed one still has parked (its circuit was closed on another instance,
     * or a release stopped half-way). Two index range statements per destination, mostly finding nothing.
     */
    public Uni<Void> sweep() {
        Uni<Void> swept = Uni.createFrom().voidItem();
        for (Destinations.Destination destination : destinations.all()) {
            String name = destination.name();
            swept = swept.chain(() -> (state(name).delivers() ? parked.releaseAll(name) : parked.parkAll(name))
                    .replaceWithVoid());
        }
        return swept;
    }

    private void handOver(AfterCommit next) {
        next.run().forEach(worker::process);
    }

    private String tooLong(String reason) {
        return "open for more than " + describe(breaker.disableAfter()) + "; " + reason;
    }

    private String reasonOf(String destination) {
        Circuit circuit = circuits.get(destination);
        return circuit == null ? null : circuit.reason();
    }

    private static int code(DestinationState state) {
        return state == DestinationState.DISABLED ? 3 : 1;
    }

    private static String truncate(String reason) {
        return reason.length() > REASON_LENGTH ? reason.substring(0, REASON_LENGTH) : reason;
    }

    /** As the configuration writes it: {@code 3d}, {@code 5m}, {@code 30s}. */
    static String describe(Duration duration) {
        long seconds = duration.toSeconds();
        if (seconds % 86_400 == 0) {
            return seconds / 86_400 + "d";
        }
        if (seconds % 3_600 == 0) {
            return seconds / 3_600 + "h";
        }
        return seconds % 60 == 0 ? seconds / 60 + "m" : seconds + "s";
    }
}
