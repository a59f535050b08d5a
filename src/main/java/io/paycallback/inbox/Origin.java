package io.paycallback.inbox;

import java.util.Locale;

/** Where a stored payment or refund fact came from; the unique key is the same whatever the origin. */
public enum Origin {
    /** The provider pushed it. */
    CALLBACK,
    /** We asked the provider about a PENDING order's payment. */
    QUERY,
    /** The provider's answer to a refund we submitted already gave its final state. */
    SUBMISSION,
    /** A provider's bill listed it, and asking the provider confirmed it (statement reconciliation's repair). */
    STATEMENT;

    public String column() {
        return name().toLowerCase(Locale.ROOT);
    }
}
