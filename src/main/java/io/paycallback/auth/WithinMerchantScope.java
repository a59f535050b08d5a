package io.paycallback.auth;

import io.quarkus.security.identity.SecurityIdentity;
import jakarta.annotation.security.PermitAll;
import jakarta.annotation.security.RolesAllowed;
import jakarta.inject.Inject;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.ResourceInfo;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.Provider;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A caller scoped to some merchants ({@link MerchantScope}: an API key, an operator whose identity provider names
 * their merchants) reaches only endpoints marked {@link Honoured}, which answer within the scope (another merchant's
 * order or callback is 404). Everything else (lists, counts, the audit log, settings spanning every merchant) answers
 * such a caller 403: an endpoint added later is closed to scoped callers until it is written for them.
 */
@Provider
public class WithinMerchantScope implements ContainerRequestFilter {

    /** The endpoint (or every endpoint of the class) answers within the caller's merchant scope. */
    @Target({ElementType.TYPE, ElementType.METHOD})
    @Retention(RetentionPolicy.RUNTIME)
    public @interface Honoured {
    }

    @Inject
    SecurityIdentity identity;

    @Context
    ResourceInfo resource;

    @Override
    public void filter(ContainerRequestContext request) {
        // Unsecured endpoints (provider callbacks, the login form) never look at the identity: that would authenticate.
        if (resource.getResourceMethod() == null || !secured()
                || MerchantScope.of(identity).merchants().isEmpty()
                || resource.getResourceMethod().isAnnotationPresent(Honoured.class)
                || resource.getResourceClass().isAnnotationPresent(Honoured.class)) {
            return;
        }
        request.abortWith(Response.status(Response.Status.FORBIDDEN).type(MediaType.TEXT_PLAIN_TYPE)
                .entity("scoped to merchants " + MerchantScope.of(identity).merchants() + ": this spans every merchant")
                .build());
    }

    private boolean secured() {
        return resource.getResourceMethod().isAnnotationPresent(RolesAllowed.class)
                || resource.getResourceClass().isAnnotationPresent(RolesAllowed.class)
                && !resource.getResourceMethod().isAnnotationPresent(PermitAll.class);
    }
}
