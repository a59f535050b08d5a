package io.paycallback.apikey;

import io.quarkus.runtime.annotations.RegisterForReflection;

import java.time.LocalDateTime;
import java.util.List;

/**
 * An API key as operators see it: never its secret.
 *
 * @param prefix     {@code pck_<id>}, the start of the key, to recognise it
 * @param merchants  the merchants it reaches
 * @param lastUsedAt when it last opened a request, to the minute; null if never
 */
@RegisterForReflection
public record ApiKey(String id, String prefix, String name, List<String> merchants, String createdBy,
                     LocalDateTime createdAt, String revokedBy, LocalDateTime revokedAt, LocalDateTime lastUsedAt) {

    public boolean revoked() {
        return revokedAt != null;
    }
}
