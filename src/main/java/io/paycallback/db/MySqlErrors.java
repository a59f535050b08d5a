package io.paycallback.db;

import io.vertx.mysqlclient.MySQLException;

/** MySQL and MariaDB server error codes that carry meaning for us. */
public final class MySqlErrors {

    private static final int DUPLICATE_KEY = 1062;
    private static final int LOCK_WAIT_TIMEOUT = 1205;
    /**
     * A deadlock on one server; on a Galera cluster also a certification failure: a transaction that lost a write-set
     * conflict against another node, reported at COMMIT (or at the next statement of a transaction aborted by a
     * replicated one).
     */
    private static final int DEADLOCK = 1213;
    /**
     * ER_TRANSACTION_ROLLBACK_DURING_COMMIT: MySQL Group Replication's certification failure in multi-primary mode, the
     * same lost race as Galera's 1213 under another number.
     */
    private static final int ROLLBACK_DURING_COMMIT = 3101;

    private MySqlErrors() {
    }

    public static boolean isDuplicateKey(Throwable failure) {
        return failure instanceof MySQLException e && e.getErrorCode() == DUPLICATE_KEY;
    }

    /**
     * The statement or transaction lost a race for the same rows against another transaction, on this server or on
     * another node of a multi-primary cluster, and was rolled back whole: nothing about the rows is wrong and nothing
     * of it was written, so running it again is the answer.
     */
    public static boolean isLostRace(Throwable failure) {
        return failure instanceof MySQLException e
                && (e.getErrorCode() == DEADLOCK || e.getErrorCode() == ROLLBACK_DURING_COMMIT);
    }

    /** The transaction lost a lock contest or a race; nothing about the rows is wrong, so trying again will do. */
    public static boolean isLockContest(Throwable failure) {
        return isLostRace(failure) || failure instanceof MySQLException e && e.getErrorCode() == LOCK_WAIT_TIMEOUT;
    }
}
