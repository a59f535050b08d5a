package io.paycallback.statement.bill;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.paycallback.trade.InvalidMoney;
import io.paycallback.trade.Money;

import java.io.IOException;
import java.io.InputStream;
import java.math.BigDecimal;

/**
 * Reads one page of {@code GET /v1/balance_transactions?created[gte]=…&created[lt]=…&limit=100&expand[]=data.source}.
 *
 * <p>A transaction is classified by {@code reporting_category}, which folds Stripe's many types into accounting
 * categories: {@code charge} (card charges and other payment methods' {@code payment}) is a payment, {@code refund}
 * (types {@code refund} and {@code payment_refund}) a refund. Every other category is skipped, among them
 * {@code partial_capture_reversal}, which has type {@code refund} but gives back the uncaptured rest of an
 * authorization and is no refund of ours. Amounts and currencies come from the expanded source (the Charge or the
 * Refund), never from the balance transaction, whose amount is in the account's settlement currency.
 */
public final class StripeBalanceTransactions {

    /** The caller owns the stream it hands in. */
    private static final ObjectMapper MAPPER =
            JsonMapper.builder().disable(StreamReadFeature.AUTO_CLOSE_SOURCE).build();

    private StripeBalanceTransactions() {
    }

    /**
     * @param hasMore whether Stripe has more after this page
     * @param lastId  the id of the page's last transaction, for {@code starting_after}; null on an empty page
     * @param count   every transaction on the page, the skipped ones included
     */
    public record Page(boolean hasMore, String lastId, int count) {
    }

    /**
     * Each line's {@link BillLine#line()} is its 1-based position on this page.
     *
     * @throws BillException.Malformed when the page is not a balance transaction list, a source is not expanded, or an
     *                                 amount or currency cannot be read
     */
    public static Page readPage(InputStream json, BillSink sink) throws BillException, IOException {
        try (JsonParser parser = MAPPER.getFactory().createParser(json)) {
            if (parser.nextToken() != JsonToken.START_OBJECT) {
                throw new BillException.Malformed("the page is not a JSON object");
            }
            Boolean hasMore = null;
            boolean sawData = false;
            String lastId = null;
            int count = 0;
            while (parser.nextToken() == JsonToken.FIELD_NAME) {
                String field = parser.currentName();
                JsonToken value = parser.nextToken();
                if (field.equals("has_more")) {
                    if (!value.isBoolean()) {
                        throw new BillException.Malformed("has_more is not a boolean");
                    }
                    hasMore = parser.getBooleanValue();
                } else if (field.equals("data")) {
                    if (value != JsonToken.START_ARRAY) {
                        throw new BillException.Malformed("data is not an array");
                    }
                    sawData = true;
                    while (parser.nextToken() == JsonToken.START_OBJECT) {
                        // One transaction at a time: a page is a hundred of them, never the whole day.
                        JsonNode transaction = MAPPER.readTree(parser);
                        count++;
                        lastId = text(transaction, "id", count);
                        BillLine line = line(transaction, count);
                        if (line != null) {
                            sink.accept(line);
                        }
                    }
                    if (parser.currentToken() != JsonToken.END_ARRAY) {
                        throw new BillException.Malformed("data holds something other than objects");
                    }
                } else {
                    parser.skipChildren();
                }
            }
            if (hasMore == null || !sawData) {
                throw new BillException.Malformed("the page lacks " + (hasMore == null ? "has_more" : "data"));
            }
            return new Page(hasMore, lastId, count);
        } catch (JsonProcessingException e) {
            throw Fields.causedBy(new BillException.Malformed("the page is not valid JSON: " + e.getOriginalMessage()), e);
        }
    }

    private static BillLine line(JsonNode transaction, int index) throws BillException.Malformed {
        String category = text(transaction, "reporting_category", index);
        boolean payment = category.equals("charge");
        if (!payment && !category.equals("refund")) {
            return null;
        }
        JsonNode source = transaction.get("source");
        if (source == null || !source.isObject()) {
            throw new BillException.Malformed("transaction " + index + ": source is not expanded (expand[]=data.source)");
        }
        String id = text(source, "id", index);
        String currency = text(source, "currency", index);
        BigDecimal amount = amount(source, currency, index);
        String paymentIntent = idOf(source.get("payment_intent"));
        JsonNode metadata = source.get("metadata");
        if (payment) {
            return new BillLine(BillLine.Kind.PAYMENT, metadataText(metadata, "out_trade_no"),
                    paymentIntent != null ? paymentIntent : id, null, null, amount, Fields.currency(currency, index),
                    BillLine.State.SUCCEEDED, index);
        }
        String charge = idOf(source.get("charge"));
        return new BillLine(BillLine.Kind.REFUND, metadataText(metadata, "out_trade_no"),
                paymentIntent != null ? paymentIntent : charge, metadataText(metadata, "out_refund_no"), id, amount,
                Fields.currency(currency, index), refundState(text(source, "status", index), index), index);
    }

    /** Refund.status per stripe-java: pending, requires_action, succeeded, failed or canceled. */
    private static BillLine.State refundState(String status, int index) throws BillException.Malformed {
        return switch (status) {
            case "succeeded" -> BillLine.State.SUCCEEDED;
            case "pending", "requires_action" -> BillLine.State.PROCESSING;
            case "failed", "canceled" -> BillLine.State.FAILED;
            default -> throw new BillException.Malformed("transaction " + index + ": refund status '" + status
                    + "' is not a known state");
        };
    }

    private static BigDecimal amount(JsonNode source, String currency, int index) throws BillException.Malformed {
        JsonNode node = source.get("amount");
        if (node == null || !node.isIntegralNumber() || !node.canConvertToLong() || node.longValue() < 0) {
            throw new BillException.Malformed("transaction " + index + ": the source's amount is not a whole number of"
                    + " minor units");
        }
        try {
            return Fields.ledger(Money.fromMinorUnits(node.longValue(), currency), index, "amount");
        } catch (InvalidMoney e) {
            throw new BillException.Malformed("transaction " + index + ": currency '" + currency + "': " + e.getMessage());
        }
    }

    /** An expandable field: an id, or the expanded object that has one. */
    private static String idOf(JsonNode node) {
        if (node == null || node.isNull()) {
            return null;
        }
        JsonNode id = node.isObject() ? node.get("id") : node;
        return id != null && id.isTextual() && !id.asText().isBlank() ? id.asText() : null;
    }

    private static String metadataText(JsonNode metadata, String key) {
        if (metadata == null || !metadata.isObject()) {
            return null;
        }
        JsonNode value = metadata.get(key);
        return value != null && value.isTextual() && !value.asText().isBlank() ? value.asText() : null;
    }

    private static String text(JsonNode node, String field, int index) throws BillException.Malformed {
        JsonNode value = node.get(field);
        if (value == null || !value.isTextual() || value.asText().isBlank()) {
            throw new BillException.Malformed("transaction " + index + ": missing " + field);
        }
        return value.asText();
    }
}
