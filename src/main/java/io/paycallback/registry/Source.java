package io.paycallback.registry;

import com.fasterxml.jackson.annotation.JsonValue;

import java.util.Locale;

/**
 * Where an entry is declared. The rule: what properties declare is applied at every start and is read-only in the API
 * and the console; what the API or the console creates lives in the database. An id is one or the other.
 */
public enum Source {
    CONFIGURATION,
    DATABASE;

    @JsonValue
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
