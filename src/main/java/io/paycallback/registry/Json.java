package io.paycallback.registry;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Reading and writing the fields of a stored account, field by field (no reflection, so nothing to register). */
final class Json {

    private Json() {
    }

    static String required(JsonNode node, String field) {
        return optional(node, field).orElseThrow(() -> new IllegalStateException("a stored account lacks " + field));
    }

    static Optional<String> optional(JsonNode node, String field) {
        JsonNode value = node.get(field);
        return value == null || value.isNull() ? Optional.empty() : Optional.of(value.asText());
    }

    static void put(ObjectNode node, String field, Optional<String> value) {
        value.ifPresent(present -> node.put(field, present));
    }

    static ArrayNode rotating(List<RotatingKey> keys) {
        ArrayNode array = JsonNodeFactory.instance.arrayNode();
        for (RotatingKey key : keys) {
            ObjectNode node = array.addObject();
            node.put("serial", key.serial());
            node.put("value", key.value());
            key.retireAt().ifPresent(at -> node.put("retireAt", at.toString()));
        }
        return array;
    }

    static List<RotatingKey> rotating(JsonNode array) {
        List<RotatingKey> keys = new ArrayList<>();
        for (JsonNode node : array) {
            keys.add(new RotatingKey(required(node, "serial"), required(node, "value"),
                    optional(node, "retireAt").map(Instant::parse)));
        }
        return keys;
    }
}
