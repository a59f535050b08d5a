package io.paycallback.ops;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Everything an operator can see and do. Each is written once, in this package, and offered by both the admin API and
 * the console: their endpoints name the action they render with {@link Offers}, and a test holds both lists equal to
 * this one.
 */
public enum OperatorAction {
    OVERVIEW,
    CALLBACK_LIST,
    CALLBACK_INSPECT,
    CALLBACK_REPLAY,
    REQUEUE,
    DEAD_LETTER_LIST,
    DEAD_LETTER_RESOLVE,
    BULK_REQUEUE_DRY_RUN,
    BULK_REQUEUE_APPLY,
    QUARANTINE_LIST,
    QUARANTINE_REPLAY,
    EVENT_LIST,
    EVENT_ATTEMPTS,
    DESTINATION_LIST,
    DESTINATION_DISABLE,
    DESTINATION_ENABLE,
    DESTINATION_PROBE,
    DESTINATION_REPLAY_DRY_RUN,
    DESTINATION_REPLAY_APPLY,
    ORDER_TIMELINE,
    ORDER_CLOSE,
    STATEMENT_RUNS,
    STATEMENT_DISCREPANCIES,
    STATEMENT_RESOLVE,
    STATEMENT_RERUN,
    AUDIT_LIST,
    REGISTRY_LIST,
    REGISTRY_CREATE,
    REGISTRY_ENABLE,
    REGISTRY_DISABLE,
    REGISTRY_PUT_ACCOUNT,
    REGISTRY_REMOVE_ACCOUNT,
    REGISTRY_ADD_KEY,
    REGISTRY_RETIRE_KEY,
    REGISTRY_REWRAP;

    /** On an endpoint of the admin API or the console: the actions it renders. */
    @Retention(RetentionPolicy.RUNTIME)
    @Target(ElementType.METHOD)
    public @interface Offers {
        OperatorAction[] value();
    }
}
