package io.paycallback.registry;

import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/**
 * Ready once the registry's database entries have been read: a pod that took traffic before would answer the callbacks
 * of merchants made through the API "unknown merchant". A later failed read or build does not make it unready: it
 * keeps serving its last snapshot, and PayCallbackRegistryStale says so.
 */
@Readiness
@ApplicationScoped
public class RegistryReadinessCheck implements HealthCheck {

    private final Registry registry;

    public RegistryReadinessCheck(Registry registry) {
        this.registry = registry;
    }

    @Override
    public HealthCheckResponse call() {
        return HealthCheckResponse.named("merchant registry").status(registry.hasRead())
                .withData("version", registry.snapshot().version()).build();
    }
}
