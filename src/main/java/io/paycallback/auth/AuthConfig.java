package io.paycallback.auth;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithName;

import java.util.Map;
import java.util.Optional;

/**
 * Bearer tokens per role, by name; several per role at once, so a token can be rotated without downtime. Spans two
 * sections: {@code paycallback.auth.*}, and the deprecated {@code paycallback.admin.token} from before the roles.
 */
@ConfigMapping(prefix = "paycallback")
public interface AuthConfig {

    /** Tokens of the order service: {@code /internal/orders}. */
    @WithName("auth.order-service")
    Role orderService();

    /** Tokens of operators: {@code /admin/**}. */
    @WithName("auth.operators")
    Role operators();

    /**
     * Deprecated: one bearer token with both roles (order service and operator), as before the roles existed.
     * Its audit name is {@code paycallback.admin.token}. Use {@link #orderService()} and {@link #operators()} instead.
     */
    @Deprecated
    @WithName("admin.token")
    Optional<String> adminToken();

    interface Role {
        /** Token name (shown in the audit log and access log) to the token, at least 16 characters. */
        Map<String, String> tokens();
    }
}
