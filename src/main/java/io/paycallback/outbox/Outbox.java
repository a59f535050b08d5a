package io.paycallback.outbox;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.paycallback.config.PayCallbackConfig;
import io.smallrye.mutiny.Multi;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.mysqlclient.MySQLClient;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes downstream events as rows, inside the caller's business transaction: the effect and the state change that
 * caused it commit or vanish together. One row per destination that subscribes to the type; with none subscribed,
 * one row for the built-in {@value #LOG_DESTINATION} destination, so the event is still recorded and logged.
 */
@ApplicationScoped
public class Outbox {

    public static final String LOG_DESTINATION = "log";

    static final String INSERT = """
            INSERT INTO outbox (source, type, destination, merchant_id, out_trade_no, payload, status, retry_count,
                                next_retry_at, created_at, updated_at)
            VALUES (?, ?, ?, ?, ?, ?, 0, 0, NOW(3), NOW(3), NOW(3))""";

    private final ObjectMapper json;
    private final Clock clock;
    private final Map<String, List<String>> destinationsByType = new LinkedHashMap<>();

    public Outbox(ObjectMapper json, Clock clock, PayCallbackConfig config) {
        this.json = json;
        this.clock = clock;
        config.downstream().destinations().forEach((name, destination) -> destination.events().forEach(type ->
                destinationsByType.computeIfAbsent(type.trim(), t -> new ArrayList<>()).add(name)));
    }

    /** Emits the event; yields the ids of the rows written, so they can be handed to the relay at once. */
    public Uni<List<Long>> emit(SqlClient transaction, DownstreamEvent event) {
        String payload = payload(event);
        return Multi.createFrom().iterable(destinations(event.type()))
                .onItem().transformToUniAndConcatenate(destination -> transaction.preparedQuery(INSERT)
                        .execute(Tuple.tuple().addString(event.source()).addString(event.type())
                                .addString(destination).addString(event.merchantId()).addString(event.outTradeNo())
                                .addString(payload))
                        .map(rows -> rows.property(MySQLClient.LAST_INSERTED_ID)))
                .collect().asList();
    }

    List<String> destinations(String type) {
        return destinationsByType.getOrDefault(type, List.of(LOG_DESTINATION));
    }

    private String payload(DownstreamEvent event) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("id", event.id());
        body.put("type", event.type());
        body.put("merchantId", event.merchantId());
        body.put("outTradeNo", event.outTradeNo());
        body.put("channel", event.channel());
        body.put("channelTradeNo", event.channelTradeNo());
        body.put("refundNo", event.refundNo());
        body.put("amount", event.amount() == null ? null : event.amount().toPlainString());
        body.put("currency", event.currency());
        body.put("reason", event.reason());
        body.put("occurredAt", clock.instant().toString());
        try {
            return json.writeValueAsString(body);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("event " + event.id() + " cannot be written as JSON", e);
        }
    }
}
