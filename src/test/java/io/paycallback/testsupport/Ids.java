package io.paycallback.testsupport;

import java.util.UUID;

/** Provider and order numbers no other test (or earlier run against the same database) has used. */
public final class Ids {

    private Ids() {
    }

    public static String unique(String prefix) {
        return prefix + UUID.randomUUID().toString().replace("-", "").substring(0, 20);
    }
}
