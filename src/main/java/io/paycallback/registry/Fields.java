package io.paycallback.registry;

import java.util.Optional;

/** The rules of an operator's request fields: required ones, and secrets that keep their value when left out. */
final class Fields {

    private Fields() {
    }

    static String required(String value, String field) {
        return present(value).orElseThrow(() -> new IllegalArgumentException(field + " is required"));
    }

    /** The value written, else the one kept; one of them must be there. */
    static String kept(String value, Optional<String> kept, String field) {
        return present(value).or(() -> kept).orElseThrow(() -> new IllegalArgumentException(field + " is required"));
    }

    /** The value written, else the one kept, else none. */
    static Optional<String> keptIfAny(String value, Optional<String> kept) {
        return present(value).or(() -> kept);
    }

    static Optional<String> present(String value) {
        return value == null || value.isBlank() ? Optional.empty() : Optional.of(value.strip());
    }
}
