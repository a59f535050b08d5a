package io.paycallback.ops;

import java.util.Optional;

/** How many rows one list may ask for. */
final class Limits {

    static final int MAX = 500;

    private Limits() {
    }

    /** @return why the limit is refused, or empty when it is fine */
    static Optional<String> check(int limit) {
        return limit >= 1 && limit <= MAX ? Optional.empty() : Optional.of("limit is 1.." + MAX);
    }
}
