package io.paycallback.auth;

/** The two kinds of caller of the service's own APIs. Provider callbacks carry no bearer token and need no role. */
public final class Roles {

    /** The order service: registers, closes and reads orders under {@code /internal/orders}. */
    public static final String ORDER_SERVICE = "order-service";
    /** A person (or their tooling) operating the service under {@code /admin/**}. */
    public static final String OPERATOR = "operator";

    private Roles() {
    }
}
