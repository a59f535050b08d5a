package io.paycallback.ops;

import io.paycallback.outbox.DeliveryAttempts;
import io.smallrye.mutiny.Uni;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import java.util.Map;

/**
 * Every delivery attempt of one outbox event, for operators (admin bearer token, see {@link AdminAuthFilter}). Its
 * own class, with the whole path on the class: a root resource at {@code /admin/outbox} would take the other
 * {@code /admin/outbox/...} paths from {@link AdminResource}.
 */
@Path("/admin/outbox/{id}/attempts")
@Produces(MediaType.APPLICATION_JSON)
public class DeliveryAttemptsResource {

    private final DeliveryAttempts attempts;

    public DeliveryAttemptsResource(DeliveryAttempts attempts) {
        this.attempts = attempts;
    }

    @GET
    public Uni<Response> attempts(@PathParam("id") long id) {
        return attempts.list(id).map(found -> found.isPresent()
                ? Response.ok(found.get()).build()
                : Response.status(Response.Status.NOT_FOUND).type(MediaType.APPLICATION_JSON_TYPE)
                        .entity(Map.of("error", "no outbox event " + id)).build());
    }
}
