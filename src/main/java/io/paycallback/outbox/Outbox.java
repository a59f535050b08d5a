package io.paycallback.outbox;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.paycallback.db.MySqlErrors;
import io.paycallback.lease.RowLease;
import io.paycallback.lease.LeaseConfig;
import io.paycallback.lease.LeasedTable;
import io.paycallback.lease.RowStatus;
import io.paycallback.trade.ChannelTradeNo;
import io.paycallback.trade.OutTradeNo;
import io.paycallback.trade.RefundNo;
import io.paycallback.tracing.Traceparent;
import io.quarkus.runtime.Startup;
import io.quarkus.runtime.annotations.RegisterForReflection;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.math.BigDecimal;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * Writes downstream events as rows, inside the caller's business transaction: the effect and the state change that
 * caused it commit or vanish together. One row per destination that subscribes to the type; with none subscribed,
 * one row for the built-in {@value #LOG_DESTINATION} destination, written as delivered and logged after the commit.
 */
@Startup
@ApplicationScoped
public class Outbox {

    /**
     * Events wait here until delivered; the relay works them off under leases. A destination that is down keeps its
     * events for a day by design (the delivery schedule, its circuit), so only an overdue try is late.
     */
    public static final LeasedTable TABLE = new LeasedTable("outbox", "outbox", LeasedTable.Lateness.SINCE_DUE);

    public static final String LOG_DESTINATION = "log";
    private static final Pattern HTTP_URL = Pattern.compile("https?://[^\\s/?#]+([/?#]\\S*)?", Pattern.CASE_INSENSITIVE);

    /**
     * The lease_token of a parked event: one whose destination takes nothing now, held by its circuit as if leased,
     * until {@code paycallback.downstream.breaker.parked-for} ahead and pushed on while the circuit stays open. A
     * release that knows no circuits sees an ordinary lease, and takes the event over when it expires: after a rollback
     * a parked event waits at most that long, never for good.
     */
    public static final String PARKED = "parked";

    static final String INSERT_COLUMNS = """
            INSERT INTO outbox (source, type, destination, merchant_id, out_trade_no, payload, traceparent, status,
                                retry_count, lease_token, next_retry_at, created_at, updated_at)
            VALUES """;
    static final String LEASED_VALUES =
            "(?, ?, ?, ?, ?, ?, ?, 0, 0, ?, DATE_ADD(NOW(3), INTERVAL ? MICROSECOND), NOW(3), NOW(3))";
    static final String LOGGED_VALUES = "(?, ?, ?, ?, ?, ?, ?, 1, 0, NULL, NOW(3), NOW(3), NOW(3))";
    static final String WRITTEN_LEASED = """
            SELECT id, source, type, destination, merchant_id, out_trade_no, payload, traceparent, TIMESTAMPDIFF(MICROSECOND, created_at, NOW(3)) AS age_us
            FROM outbox WHERE lease_token = ? AND status = 0""";

    static final String LIST_FOR_ORDER = """
            SELECT id, source, type, destination, status, retry_count, next_retry_at, last_error, payload, created_at
            FROM outbox WHERE merchant_id = ? AND out_trade_no = ? ORDER BY id""";

    // Housekeeping moves done rows here past the retention, unchanged (ids included); the order key came with LIKE.
    static final String LIST_ARCHIVED_FOR_ORDER = """
            SELECT id, source, type, destination, status, retry_count, next_retry_at, last_error, payload, created_at
            FROM outbox_archive WHERE merchant_id = ? AND out_trade_no = ? ORDER BY id""";

    // The conditions of an EventQuery go where %s is, each " AND column = ?".
    static final String LIST_BY_STATUS = """
            SELECT id, source, type, destination, status, retry_count, next_retry_at, last_error, payload, created_at
            FROM outbox WHERE status = ?%s ORDER BY next_retry_at DESC, id DESC LIMIT ?""";

    private final ObjectMapper json;
    private final Clock clock;
    private final DestinationGate gate;
    private final Map<EventType, List<String>> destinationsByType = new EnumMap<>(EventType.class);
    private final long leaseMicros;
    private final long parkedMicros;

    /** An outbox for which every destination takes events. */
    public Outbox(ObjectMapper json, Clock clock, LeaseConfig lease, OutboxConfig config) {
        this(json, clock, lease, config, DestinationGate.ALL);
    }

    @Inject
    public Outbox(ObjectMapper json, Clock clock, LeaseConfig lease, OutboxConfig config, DestinationGate gate) {
        this.json = json;
        this.clock = clock;
        this.gate = gate;
        this.leaseMicros = TimeUnit.MICROSECONDS.convert(lease.lease());
        this.parkedMicros = TimeUnit.MICROSECONDS.convert(config.parkedFor());
        // A misspelt type would silently starve its destination, a URL that is not HTTP fail every try for a day:
        // refuse both at start-up, naming the key.
        config.destinations().forEach((name, destination) -> {
            String key = "paycallback.downstream.destinations." + name;
            if (destination.url().isPresent() == destination.kafka().isPresent()) {
                throw new IllegalArgumentException(key + ": set exactly one of " + key + ".url (HTTP) and " + key
                        + ".kafka.* (a Kafka topic)");
            }
            if (destination.url().isPresent() && !HTTP_URL.matcher(destination.url().get()).matches()) {
                throw new IllegalArgumentException(key + ".url is not an http:// or https:// URL");
            }
            destination.events().forEach(wire -> {
                EventType type = EventType.fromWire(wire.trim()).orElseThrow(() -> new IllegalArgumentException(
                        key + ".events: unknown event type '" + wire.trim() + "'; known: " + EventType.known()));
                destinationsByType.computeIfAbsent(type, t -> new ArrayList<>()).add(name);
            });
        });
    }

    /**
     * Emits the event, one row per destination. An event is named by its source and type, so emitting it again
     * writes nothing (a replay of a settled callback).
     */
    public Uni<List<Emission>> emit(SqlClient transaction, DownstreamEvent event) {
        return emitAll(transaction, List.of(event)).map(Emitted::emissions);
    }

    /**
     * Emits every event with at most three statements whatever their number: one multi-row INSERT for the rows
     * delivered later, one for the rows of the log destination, one SELECT of the former (the ids a multi-row INSERT
     * generates are not reliably consecutive on MySQL 8); and while a destination takes nothing, one more INSERT for
     * its rows, written parked. Should a row already exist, the INSERT fails as a whole with nothing written
     * (statement-level rollback, the transaction goes on) and the rows are written one by one, skipping those that
     * exist.
     */
    public Uni<Emitted> emitAll(SqlClient transaction, List<DownstreamEvent> events) {
        Optional<Traceparent> now = Traceparent.current();
        return emitAll(transaction, events, event -> now);
    }

    /**
     * As {@link #emitAll(SqlClient, List)}, each event's rows carrying the traceparent of what caused it, which every
     * try of their delivery continues.
     */
    public Uni<Emitted> emitAll(SqlClient transaction, List<DownstreamEvent> events,
                                Function<DownstreamEvent, Optional<Traceparent>> causes) {
        if (events.isEmpty()) {
            return Uni.createFrom().item(Emitted.NONE);
        }
        String token = UUID.randomUUID().toString();
        List<Tuple> leased = new ArrayList<>();
        List<Tuple> logged = new ArrayList<>();
        List<Tuple> parked = new ArrayList<>();
        List<Emission> emissions = new ArrayList<>();
        for (DownstreamEvent event : events) {
            String payload = payload(event);
            String traceparent = Traceparent.valueOrNull(causes.apply(event));
            for (String destination : destinations(event.type())) {
                Tuple row = Tuple.tuple().addString(event.source()).addString(event.type().wire()).addString(destination)
                        .addString(event.subject().merchantId())
                        .addString(OutTradeNo.valueOrNull(event.subject().outTradeNo()))
                        .addString(payload)
                        .addString(traceparent);
                if (LOG_DESTINATION.equals(destination)) {
                    logged.add(row);
                } else if (gate.accepts(destination)) {
                    leased.add(row.addString(token).addLong(leaseMicros));
                } else {
                    parked.add(row.addString(PARKED).addLong(parkedMicros));
                }
            }
        }
        return insert(transaction, LOGGED_VALUES, logged)
                .invoke(written -> written.forEach(row -> emissions.add(new Emission.ToLog(
                        idempotencyKey(row.getString(0), row.getString(1), row.getString(2)), row.getString(5)))))
                .chain(() -> insert(transaction, LEASED_VALUES, parked))
                .chain(() -> insert(transaction, LEASED_VALUES, leased))
                .chain(written -> written.isEmpty() ? Uni.createFrom().item(List.<Emission>of())
                        : transaction.preparedQuery(WRITTEN_LEASED).execute(Tuple.of(token)).map(rows -> {
                            List<Emission> toDeliver = new ArrayList<>();
                            for (Row row : rows) {
                                PendingEvent pending = PendingEvent.of(row);
                                toDeliver.add(new Emission.ToDeliver(
                                        new RowLease(Outbox.TABLE, pending.id(), token, 0), pending));
                            }
                            return toDeliver;
                        }))
                .map(toDeliver -> {
                    emissions.addAll(toDeliver);
                    return new Emitted(emissions);
                });
    }

    /** @return the rows written: all of them, or those that did not exist yet */
    private static Uni<List<Tuple>> insert(SqlClient transaction, String values, List<Tuple> rows) {
        if (rows.isEmpty()) {
            return Uni.createFrom().item(List.of());
        }
        if (rows.size() == 1) {
            return insertOne(transaction, values, rows.get(0)).map(written -> written ? rows : List.of());
        }
        Tuple all = Tuple.tuple();
        rows.forEach(row -> {
            for (int i = 0; i < row.size(); i++) {
                all.addValue(row.getValue(i));
            }
        });
        String sql = INSERT_COLUMNS + String.join(", ", Collections.nCopies(rows.size(), values));
        return transaction.preparedQuery(sql).execute(all).map(ignored -> rows)
                .onFailure(MySqlErrors::isDuplicateKey).recoverWithUni(() -> Multi.createFrom().iterable(rows)
                        .onItem().transformToUniAndConcatenate(row -> insertOne(transaction, values, row)
                                .map(written -> written ? Optional.of(row) : Optional.<Tuple>empty()))
                        .collect().asList()
                        .map(written -> written.stream().flatMap(Optional::stream).toList()));
    }

    private static Uni<Boolean> insertOne(SqlClient transaction, String values, Tuple row) {
        return transaction.preparedQuery(INSERT_COLUMNS + values).execute(row).map(ignored -> true)
                .onFailure(MySqlErrors::isDuplicateKey).recoverWithItem(false);
    }

    /** Stable per event and destination: a receiver that saw an earlier try of the same delivery can tell. */
    public static String idempotencyKey(String source, String type, String destination) {
        return source + ":" + type + ":" + destination;
    }

    /** Every event of one order, for an operator, payload included (it carries no secrets). */
    public Uni<List<OutboxEvent>> listForOrder(SqlClient client, String merchantId, String outTradeNo) {
        return client.preparedQuery(LIST_FOR_ORDER).execute(Tuple.of(merchantId, outTradeNo)).map(Outbox::events);
    }

    /** Every event of one order that housekeeping archived, payload included. */
    public Uni<List<OutboxEvent>> listArchivedForOrder(SqlClient client, String merchantId, String outTradeNo) {
        return client.preparedQuery(LIST_ARCHIVED_FOR_ORDER).execute(Tuple.of(merchantId, outTradeNo)).map(Outbox::events);
    }

    /** Events in one status, narrowed by any of merchant, type and destination (null: any). */
    public record EventQuery(RowStatus status, String merchantId, EventType type, String destination) {
    }

    /** The query's events, the latest due first (the dead letters, for an operator). */
    public Uni<List<OutboxEvent>> list(SqlClient client, EventQuery query, int limit) {
        StringBuilder where = new StringBuilder();
        Tuple params = Tuple.tuple().addInteger(query.status().code());
        if (query.merchantId() != null) {
            where.append(" AND merchant_id = ?");
            params.addString(query.merchantId());
        }
        if (query.type() != null) {
            where.append(" AND type = ?");
            params.addString(query.type().wire());
        }
        if (query.destination() != null) {
            where.append(" AND destination = ?");
            params.addString(query.destination());
        }
        return client.preparedQuery(LIST_BY_STATUS.formatted(where)).execute(params.addInteger(limit)).map(Outbox::events);
    }

    private static List<OutboxEvent> events(Iterable<Row> rows) {
        List<OutboxEvent> events = new ArrayList<>();
        for (Row row : rows) {
            events.add(new OutboxEvent(row.getLong("id"), row.getString("source"), row.getString("type"),
                    row.getString("destination"), RowStatus.of(row.getInteger("status")), row.getInteger("retry_count"),
                    row.getLocalDateTime("next_retry_at"), row.getString("last_error"), row.getString("payload"),
                    row.getLocalDateTime("created_at")));
        }
        return events;
    }

    List<String> destinations(EventType type) {
        return destinationsByType.getOrDefault(type, List.of(LOG_DESTINATION));
    }

    /** The documented body of a downstream event; its component order is the JSON's field order. */
    @RegisterForReflection
    record EventBody(String id, String type, String merchantId, String outTradeNo, String channel,
                     String channelTradeNo, String refundNo, String amount, String refundAmount, String refundedTotal,
                     String currency, String reason, String occurredAt) {
    }

    private String payload(DownstreamEvent event) {
        try {
            return json.writeValueAsString(body(event, clock.instant()));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("event " + event.id() + " cannot be written as JSON", e);
        }
    }

    static EventBody body(DownstreamEvent event, Instant occurredAt) {
        Subject about = event.subject();
        return new EventBody(event.id(), event.type().wire(), about.merchantId(),
                OutTradeNo.valueOrNull(about.outTradeNo()), about.channel(),
                ChannelTradeNo.valueOrNull(about.channelTradeNo()), RefundNo.valueOrNull(about.refundNo()),
                plain(event.amount()), plain(event.refundAmount()), plain(event.refundedTotal()), about.currency(),
                event.reason(), occurredAt.toString());
    }

    private static String plain(BigDecimal amount) {
        return amount == null ? null : amount.toPlainString();
    }
}
