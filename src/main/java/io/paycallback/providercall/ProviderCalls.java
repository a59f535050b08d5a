package io.paycallback.providercall;

import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** The provider_calls table: every request we made to a provider for an order, and its answer in words. */
@ApplicationScoped
public class ProviderCalls {

    static final String INSERT = """
            INSERT INTO provider_calls (merchant_id, out_trade_no, channel, operation, subject, answer, created_at)
            VALUES %s""";
    static final String ROW = "(?, ?, ?, ?, ?, ?, NOW(3))";
    static final String FOR_ORDER = """
            SELECT channel, operation, subject, answer, created_at FROM provider_calls
            WHERE merchant_id = ? AND out_trade_no = ? ORDER BY id""";

    private static final int ANSWER_LENGTH = 512;

    /**
     * One call to a provider's API.
     *
     * @param operation what was asked: {@code payment-query}, {@code close}, {@code refund}, {@code refund-query}
     * @param subject   the refund number, for refund calls
     * @param answer    what came back, in words: the provider's state or code, or why there was no answer
     */
    public record Call(String merchantId, String outTradeNo, String channel, String operation, String subject,
                       String answer) {
    }

    /** A call as the order's timeline shows it. */
    public record Listed(String channel, String operation, String subject, String answer, LocalDateTime at) {
    }

    /** Writes the calls with one statement. */
    public Uni<Void> record(SqlClient client, List<Call> calls) {
        if (calls.isEmpty()) {
            return Uni.createFrom().voidItem();
        }
        Tuple params = Tuple.tuple();
        for (Call call : calls) {
            params.addString(call.merchantId()).addString(call.outTradeNo()).addString(call.channel())
                    .addString(call.operation()).addString(call.subject()).addString(truncate(call.answer()));
        }
        return client.preparedQuery(INSERT.formatted(String.join(", ", Collections.nCopies(calls.size(), ROW))))
                .execute(params).replaceWithVoid();
    }

    public Uni<List<Listed>> forOrder(SqlClient client, String merchantId, String outTradeNo) {
        return client.preparedQuery(FOR_ORDER).execute(Tuple.of(merchantId, outTradeNo)).map(rows -> {
            List<Listed> found = new ArrayList<>();
            for (Row row : rows) {
                found.add(new Listed(row.getString("channel"), row.getString("operation"), row.getString("subject"),
                        row.getString("answer"), row.getLocalDateTime("created_at")));
            }
            return found;
        });
    }

    private static String truncate(String answer) {
        String text = answer == null ? "" : answer;
        return text.length() > ANSWER_LENGTH ? text.substring(0, ANSWER_LENGTH) : text;
    }
}
