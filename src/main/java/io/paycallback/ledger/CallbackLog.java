package io.paycallback.ledger;

/** The two idempotency tables. Payments and refunds never share one: their unique keys would collide. */
public enum CallbackLog {
    PAYMENT("pay_callback_log"),
    REFUND("refund_callback_log");

    private final String table;

    CallbackLog(String table) {
        this.table = table;
    }

    public String table() {
        return table;
    }
}
