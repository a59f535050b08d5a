package io.paycallback.ledger;

import io.vertx.mysqlclient.MySQLException;

/** MySQL and MariaDB server error codes that carry meaning for us. */
public final class MySqlErrors {

    private static final int DUPLICATE_KEY = 1062;
    private static final int LOCK_WAIT_TIMEOUT = 1205;
    private static final int DEADLOCK = 1213;

    private MySqlErrors() {
    }

    public static boolean isDuplicateKey(Throwable failure) {
        return failure instanceof MySQLException e && e.getErrorCode() == DUPLICATE_KEY;
    }

    /** The transaction lost a lock contest; nothing about the rows is wrong, so trying again will do. */
    public static boolean isLockContest(Throwable failure) {
        return failure instanceof MySQLException e
                && (e.getErrorCode() == DEADLOCK || e.getErrorCode() == LOCK_WAIT_TIMEOUT);
    }
}
