package io.paycallback.console;

import io.paycallback.ops.ActionResult;
import io.quarkus.qute.TemplateInstance;
import io.quarkus.security.identity.SecurityIdentity;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.function.Function;

/**
 * What every console page needs besides its own data: the frame (who is signed in, the CSRF token htmx sends back,
 * the section), the operator's name for the audit, and how an action's result is shown where its button was.
 */
@ApplicationScoped
public class ConsolePage {

    /** Served by the htmx webjar; its version is the pom's {@code htmx.version}. */
    public static final String HTMX = "/webjars/htmx.org/2.0.8/dist/htmx.min.js";
    static final int LIST_LIMIT = 200;

    private final SecurityIdentity identity;

    public ConsolePage(SecurityIdentity identity) {
        this.identity = identity;
    }

    ConsoleViews.Page page(String section) {
        ConsoleSessions.Session session = identity.getAttribute(ConsoleSessionIdentityProvider.SESSION);
        return new ConsoleViews.Page(session.operator(), session.csrf(), section, HTMX, session.acts());
    }

    /** The audit name: the operator's token name or the identity provider's user name, as with a bearer token. */
    String operator() {
        return identity.getPrincipal().getName();
    }

    /** An action's outcome as one line where its button was: its summary when done, else why not. */
    static TemplateInstance done(ActionResult<?> result) {
        return Templates.done(outcome(result));
    }

    /** A page built from an action's value, or the line saying why there is none. */
    static <T> TemplateInstance page(ActionResult<T> result, Function<T, TemplateInstance> page) {
        return result instanceof ActionResult.Done<T> done ? page.apply(done.value()) : Templates.done(outcome(result));
    }

    /** A form field as an action takes it: blank means not given. */
    static String blankToNull(String value) {
        return value == null || value.isBlank() ? null : value.strip();
    }

    private static <T> ConsoleViews.Done outcome(ActionResult<T> result) {
        return result.render(new ActionResult.Rendering<>() {
            @Override
            public ConsoleViews.Done done(ActionResult.Done<T> done) {
                return new ConsoleViews.Done(true, done.summary());
            }

            @Override
            public ConsoleViews.Done notFound(ActionResult.NotFound<T> notFound) {
                return new ConsoleViews.Done(false, notFound.reason());
            }

            @Override
            public ConsoleViews.Done conflict(ActionResult.Conflict<T> conflict) {
                return new ConsoleViews.Done(false, conflict.reason());
            }

            @Override
            public ConsoleViews.Done refused(ActionResult.Refused<T> refused) {
                return new ConsoleViews.Done(false, refused.reason());
            }

            @Override
            public ConsoleViews.Done unreadable(ActionResult.Unreadable<T> unreadable) {
                return new ConsoleViews.Done(false, unreadable.reason());
            }
        });
    }
}
