package io.paycallback.registry;

import com.fasterxml.jackson.annotation.JsonValue;

import java.util.Locale;
import java.util.Optional;

/** A merchant, whose payments are filed under its id, or a platform, which collects for its sub-merchants. */
public enum OwnerKind {
    MERCHANT,
    PLATFORM;

    @JsonValue
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static Optional<OwnerKind> of(String label) {
        for (OwnerKind kind : values()) {
            if (kind.label().equals(label)) {
                return Optional.of(kind);
            }
        }
        return Optional.empty();
    }
}
