package io.paycallback.ops;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Everything an operator can see and do. Each is written once, in this package, as the one method marked
 * {@link Performs} with it, where its defaults are too; the admin API and the console both offer it, their endpoints
 * naming with {@link Offers} the actions they render. A test holds both lists equal to this one, and every endpoint to
 * calling the method of each action it names, so the two edges cannot drift apart on what an action does.
 */
public enum OperatorAction {
    OVERVIEW,
    TRENDS,
    CALLBACK_LIST,
    CALLBACK_INSPECT,
    CALLBACK_REPLAY,
    REQUEUE,
    DEAD_LETTER_LIST,
    DEAD_LETTER_RESOLVE,
    BULK_REQUEUE_DRY_RUN,
    BULK_REQUEUE_RECOUNT,
    BULK_REQUEUE_APPLY,
    QUARANTINE_LIST,
    QUARANTINE_REPLAY,
    EVENT_LIST,
    EVENT_ATTEMPTS,
    DESTINATION_LIST,
    DESTINATION_INSPECT,
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
    REGISTRY_INSPECT,
    REGISTRY_CHANGES,
    REGISTRY_CREATE,
    REGISTRY_ENABLE,
    REGISTRY_DISABLE,
    REGISTRY_PUT_ACCOUNT,
    REGISTRY_REMOVE_ACCOUNT,
    REGISTRY_ADD_KEY,
    REGISTRY_RETIRE_KEY,
    REGISTRY_REWRAP,
    API_KEY_LIST,
    API_KEY_CREATE,
    API_KEY_REVOKE;

    /** On an endpoint of the admin API or the console: the actions it renders (none: a form, which performs nothing). */
    @Retention(RetentionPolicy.RUNTIME)
    @Target(ElementType.METHOD)
    public @interface Offers {
        OperatorAction[] value();
    }

    /** On the one method of this package that is the action: both edges call it, and nothing else, to perform it. */
    @Retention(RetentionPolicy.RUNTIME)
    @Target(ElementType.METHOD)
    public @interface Performs {
        OperatorAction value();
    }
}
