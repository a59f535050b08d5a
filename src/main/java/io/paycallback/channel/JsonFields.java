package io.paycallback.channel;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.paycallback.trade.InvalidMoney;
import io.paycallback.trade.Money;

import java.io.IOException;

/** Reading a signed JSON document, where every absent or mistyped field is a {@link Rejection.Malformed}. */
public final class JsonFields {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private JsonFields() {
    }

    public static JsonNode parse(byte[] json, String what) throws Rejection.Malformed {
        try {
            JsonNode node = MAPPER.readTree(json);
            if (node == null || !node.isObject()) {
                throw Rejection.malformed(what + " is not a JSON object");
            }
            return node;
        } catch (IOException e) {
            throw Rejection.malformed(what + " is not valid JSON");
        }
    }

    public static JsonNode object(JsonNode parent, String field) throws Rejection.Malformed {
        JsonNode node = parent.get(field);
        if (node == null || !node.isObject()) {
            throw Rejection.malformed("missing object " + field);
        }
        return node;
    }

    public static String text(JsonNode parent, String field) throws Rejection.Malformed {
        String value = optionalText(parent, field);
        if (value == null) {
            throw Rejection.malformed("missing " + field);
        }
        return value;
    }

    /** A non-blank string field, or null when absent, null or blank. */
    public static String optionalText(JsonNode parent, String field) throws Rejection.Malformed {
        JsonNode node = parent.get(field);
        if (node == null || node.isNull()) {
            return null;
        }
        if (!node.isTextual()) {
            throw Rejection.malformed(field + " is not a string");
        }
        String value = node.asText();
        return value.isBlank() ? null : value;
    }

    /** A non-negative whole number of minor units; providers never send money as a JSON fraction. */
    public static long minorUnits(JsonNode parent, String field) throws Rejection.Malformed {
        JsonNode node = parent.get(field);
        if (node == null || !node.isIntegralNumber() || !node.canConvertToLong()) {
            throw Rejection.malformed(field + " is not a whole number");
        }
        long value = node.longValue();
        if (value < 0) {
            throw Rejection.malformed(field + " is negative");
        }
        return value;
    }

    /** A whole number of minor units in {@code currency}, as the ledger's amount. */
    public static Money amount(JsonNode parent, String field, String currency) throws Rejection.Malformed {
        return amount(minorUnits(parent, field), currency);
    }

    public static Money amount(long minorUnits, String currency) throws Rejection.Malformed {
        try {
            return new Money(Money.fromMinorUnits(minorUnits, currency), currency);
        } catch (InvalidMoney invalid) {
            throw Rejection.malformed(invalid.getMessage());
        }
    }

    /** The upper-case ISO 4217 code of a currency the ledger can hold. */
    public static String currency(String code) throws Rejection.Malformed {
        try {
            return Money.currencyCode(code);
        } catch (InvalidMoney invalid) {
            throw Rejection.malformed(invalid.getMessage());
        }
    }
}
