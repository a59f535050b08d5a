package io.paycallback.auth;

/** The kinds of caller of the service's own APIs. Provider callbacks carry no bearer token and need no role. */
public final class Roles {

    /** The order service: registers, closes and reads orders under {@code /internal/orders}. */
    public static final String ORDER_SERVICE = "order-service";
    /** A person (or their tooling) operating the service under {@code /admin/**}: every page and every action. */
    public static final String OPERATOR = "operator";
    /**
     * A person who may look but not act: every {@code GET} of the admin API and every console page, no action (a
     * mutating endpoint or console form answers 403). Given only through an identity provider's role mapping.
     */
    public static final String VIEWER = "viewer";

    private Roles() {
    }
}
