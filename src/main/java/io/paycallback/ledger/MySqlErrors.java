package io.paycallback.ledger;

import io.vertx.mysqlclient.MySQLException;

/** MySQL and MariaDB server error codes that carry meaning for us. */
public final class MySqlErrors {

    private static final int DUPLICATE_KEY = 1062;

    private MySqlErrors() {
    }

    public static boolean isDuplicateKey(Throwable failure) {
        return failure instanceof MySQLException e && e.getErrorCode() == DUPLICATE_KEY;
    }
}
