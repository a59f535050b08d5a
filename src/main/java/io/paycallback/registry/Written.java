package io.paycallback.registry;

/** What a change to the registry came to. */
public sealed interface Written {

    /**
     * Committed as {@code version}, and served by this instance already; the others follow within their poll.
     *
     * @param auditEntry the operator audit log's entry
     */
    record Changed(long version, OwnerView owner, String summary, long auditEntry) implements Written {
    }

    record Unchanged(String summary) implements Written {
    }

    record NotFound(String reason) implements Written {
    }

    record Refused(String reason) implements Written {
    }

    /** Another change got there first (an id taken, a sub-merchant id claimed): nothing was written. */
    record Conflict(String reason) implements Written {
    }
}
