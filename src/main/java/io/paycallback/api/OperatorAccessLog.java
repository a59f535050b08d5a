package io.paycallback.api;

import io.quarkus.vertx.http.runtime.CurrentVertxRequest;
import jakarta.inject.Inject;
import jakarta.ws.rs.NameBinding;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.ext.Provider;
import org.jboss.logging.Logger;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Logs every operator call: method, path, the caller's token name and address, never the token. Runs after the
 * security check, so only authorised calls reach it and the caller is known.
 */
@Provider
@OperatorAccessLog.Logged
public class OperatorAccessLog implements ContainerRequestFilter {

    private static final Logger LOG = Logger.getLogger(OperatorAccessLog.class);

    /** Binds this log to a resource. */
    @NameBinding
    @Target({ElementType.TYPE, ElementType.METHOD})
    @Retention(RetentionPolicy.RUNTIME)
    public @interface Logged {
    }

    @Inject
    CurrentVertxRequest request;

    @Override
    public void filter(ContainerRequestContext context) {
        LOG.infof("admin %s %s by %s from %s", context.getMethod(), context.getUriInfo().getPath(),
                context.getSecurityContext().getUserPrincipal().getName(), request.getCurrent().request().remoteAddress());
    }
}
