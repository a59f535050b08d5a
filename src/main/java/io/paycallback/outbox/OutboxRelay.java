package io.paycallback.outbox;

import io.paycallback.config.PayCallbackConfig;
import io.paycallback.ledger.Lease;
import io.paycallback.ledger.LeaseLostException;
import io.paycallback.ledger.Leases;
import io.smallrye.mutiny.Uni;
import io.vertx.core.buffer.Buffer;
import io.vertx.mutiny.core.Vertx;
import io.vertx.mutiny.ext.web.client.WebClient;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

import java.util.List;
import java.util.Map;

/**
 * Delivers one leased outbox row: a JSON POST with an Idempotency-Key that is the same on every try, so a receiver
 * that saw an earlier try can tell. Any 2xx is delivered; anything else fails the try and the lease's backoff decides.
 * Every HTTP try is recorded in {@code delivery_attempts} with the outcome it led to.
 */
@ApplicationScoped
public class OutboxRelay {

    private static final Logger LOG = Logger.getLogger(OutboxRelay.class);

    static final String LOAD = "SELECT source, type, destination, payload FROM outbox WHERE id = ?";
    static final String LOAD_FOR_ALERT = "SELECT type, destination, merchant_id, out_trade_no FROM outbox WHERE id = ?";

    private final Pool pool;
    private final Leases leases;
    private final Outbox outbox;
    private final WebClient http;
    private final DeliveryAttempts attempts;
    private final DeliveryMetrics metrics;
    private final Map<String, PayCallbackConfig.Downstream.Destination> destinations;

    public OutboxRelay(Pool pool, Leases leases, Outbox outbox, DeliveryAttempts attempts, DeliveryMetrics metrics,
                       Vertx vertx, PayCallbackConfig config) {
        this.pool = pool;
        this.leases = leases;
        this.outbox = outbox;
        this.attempts = attempts;
        this.metrics = metrics;
        this.http = WebClient.create(vertx);
        this.destinations = config.downstream().destinations();
    }

    @PreDestroy
    void close() {
        http.close();
    }

    /**
     * Delivers and marks the row done, recording the try in the same transaction; fails when the destination did not
     * take it, with a {@link DeliveryFailedException} that carries the try for the failure's own transaction.
     */
    public Uni<String> deliver(Lease lease) {
        return pool.preparedQuery(LOAD).execute(Tuple.of(lease.id()))
                .map(rows -> {
                    // Housekeeping may have archived the row since it was leased: nothing is left to deliver.
                    var iterator = rows.iterator();
                    if (!iterator.hasNext()) {
                        throw new LeaseLostException(lease);
                    }
                    return iterator.next();
                })
                .flatMap(row -> {
                    String destination = row.getString("destination");
                    String type = row.getString("type");
                    String idempotencyKey = Outbox.idempotencyKey(row.getString("source"), type, destination);
                    if (Outbox.LOG_DESTINATION.equals(destination)) {
                        log(idempotencyKey, row.getString("payload"));
                        return leases.finish(pool, lease).replaceWith(type);
                    }
                    return send(lease, destination, idempotencyKey, row.getString("payload"))
                            .invoke(metrics::record)
                            .flatMap(attempt -> attempt.delivered()
                                    ? attempts.withOutcome(attempt, tx -> leases.finish(tx, lease))
                                    .onFailure(failure -> !(failure instanceof LeaseLostException))
                                    .transform(failure -> new DeliveryFailedException(attempt, failure))
                                    .replaceWith(type)
                                    : Uni.createFrom().<String>failure(new DeliveryFailedException(attempt, null)));
                });
    }

    /** One HTTP try; never fails: what went wrong is in the attempt. */
    private Uni<DeliveryAttempt> send(Lease lease, String destination, String idempotencyKey, String payload) {
        long started = System.nanoTime();
        PayCallbackConfig.Downstream.Destination target = destinations.get(destination);
        if (target == null) {
            return Uni.createFrom().item(DeliveryAttempt.failed(lease, destination,
                    "destination '" + destination + "' is not configured", started));
        }
        return http.postAbs(target.url())
                .putHeader("Content-Type", "application/json")
                .putHeader("Idempotency-Key", idempotencyKey)
                .timeout(target.timeout().toMillis())
                .sendBuffer(io.vertx.mutiny.core.buffer.Buffer.newInstance(Buffer.buffer(payload)))
                .map(response -> DeliveryAttempt.answered(lease, destination, response.statusCode(),
                        response.body() == null ? null : response.body().getBytes(), started))
                .onFailure().recoverWithItem(failure -> DeliveryAttempt.failed(lease, destination,
                        failure.getClass().getSimpleName() + (failure.getMessage() == null ? "" : ": " + failure.getMessage()),
                        started));
    }

    /**
     * The alert for an event that could not be delivered in all its tries. An alert that could not be delivered is
     * only logged: alerting about it through the same broken path would loop.
     */
    public Uni<List<Emission>> giveUp(SqlClient transaction, long id, String reason) {
        return transaction.preparedQuery(LOAD_FOR_ALERT).execute(Tuple.of(id)).flatMap(rows -> {
            var iterator = rows.iterator();
            if (!iterator.hasNext()) {
                return Uni.createFrom().item(List.<Emission>of());
            }
            Row row = iterator.next();
            if (EventType.ALERT.wire().equals(row.getString("type"))) {
                LOG.errorf("Alert outbox #%d to %s could not be delivered: %s", id, row.getString("destination"), reason);
                return Uni.createFrom().item(List.<Emission>of());
            }
            return outbox.emit(transaction, DownstreamEvent.alert("outbox:" + id, row.getString("merchant_id"),
                    row.getString("out_trade_no"), null, null, null, null,
                    row.getString("type") + " to " + row.getString("destination") + " undeliverable: " + reason));
        });
    }

    /** The delivery of an event no destination subscribes to. */
    public void log(Emission.ToLog emission) {
        log(emission.idempotencyKey(), emission.payload());
    }

    private static void log(String idempotencyKey, String payload) {
        LOG.infof("Downstream event %s (no destination subscribes to its type): %s", idempotencyKey, payload);
    }
}
