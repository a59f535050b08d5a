package io.paycallback.health;

import io.smallrye.health.api.AsyncHealthCheck;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Not ready while the Galera node this instance's pool talks to is not Synced (a donor, a joiner, desynced) or not
 * ready, so Kubernetes routes callbacks to instances whose node commits them at once. Asked on the reactive pool,
 * without blocking the probe's event loop. With {@code paycallback.database.galera-check=auto} a server that reports
 * no wsrep status is remembered as not Galera and never asked again.
 */
@Readiness
@ApplicationScoped
public class GaleraReadinessCheck implements AsyncHealthCheck {

    static final String NAME = "galera node";
    static final String WSREP_STATUS = """
            SHOW STATUS WHERE Variable_name IN ('wsrep_ready', 'wsrep_local_state', 'wsrep_local_state_comment')""";
    private static final Duration TIMEOUT = Duration.ofSeconds(2);

    private final Pool pool;
    private final HealthConfig.GaleraCheck mode;
    private volatile boolean notGalera;

    public GaleraReadinessCheck(Pool pool, HealthConfig config) {
        this.pool = pool;
        this.mode = config.galeraCheck();
    }

    @Override
    public Uni<HealthCheckResponse> call() {
        if (mode == HealthConfig.GaleraCheck.OFF || notGalera) {
            return Uni.createFrom().item(HealthCheckResponse.named(NAME).up().withData("checked", false).build());
        }
        return pool.query(WSREP_STATUS).execute()
                .ifNoItem().after(TIMEOUT).fail()
                .map(rows -> {
                    Map<String, String> status = new HashMap<>();
                    for (Row row : rows) {
                        status.put(row.getString(0).toLowerCase(Locale.ROOT), row.getString(1));
                    }
                    return answer(status);
                })
                .onFailure().recoverWithItem(failure -> HealthCheckResponse.named(NAME).down()
                        .withData("error", failure.getClass().getSimpleName()).build());
    }

    private HealthCheckResponse answer(Map<String, String> status) {
        return GaleraState.of(status).map(state -> HealthCheckResponse.named(NAME).status(state.synced())
                        .withData("wsrep_ready", state.ready())
                        .withData("wsrep_local_state", state.localState())
                        .withData("wsrep_local_state_comment", state.comment()).build())
                .orElseGet(() -> {
                    if (mode == HealthConfig.GaleraCheck.ON) {
                        return HealthCheckResponse.named(NAME).down()
                                .withData("error", "the server reports no wsrep status").build();
                    }
                    notGalera = true;
                    return HealthCheckResponse.named(NAME).up().withData("checked", false).build();
                });
    }
}
