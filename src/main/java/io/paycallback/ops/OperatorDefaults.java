package io.paycallback.ops;

import io.paycallback.config.PayCallbackConfig;

import java.time.Period;

/**
 * What an operator gets for a field left out, the same through the admin API and the console: the edges pass on what
 * was sent (null or blank when nothing was) and the action fills it in here.
 */
final class OperatorDefaults {

    /** The days of statement runs shown when no dates are given: up to today, this far back. */
    static final Period STATEMENT_WINDOW = Period.ofDays(30);

    /** The hours of charts shown when none are asked for. */
    static final int TREND_HOURS = 6;

    private OperatorDefaults() {
    }

    /** The merchant an order, its events or its bill belong to: the one named, else the single merchant's id. */
    static String merchant(String merchantId) {
        return merchantId == null || merchantId.isBlank() ? PayCallbackConfig.DEFAULT_MERCHANT : merchantId.strip();
    }
}
