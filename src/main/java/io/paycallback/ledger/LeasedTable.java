package io.paycallback.ledger;

/**
 * Every table whose rows are worked off with a lease and a backoff: they share the columns status, retry_count,
 * next_retry_at, lease_token, last_error and the index (status, next_retry_at), and one piece of code serves them all.
 */
public enum LeasedTable {
    PAY_CALLBACK_LOG("pay_callback_log"),
    REFUND_CALLBACK_LOG("refund_callback_log"),
    OUTBOX("outbox"),
    ORDER_QUERIES("order_queries"),
    REFUND_SUBMISSIONS("refund_submissions"),
    CLOSE_REQUESTS("close_requests"),
    STATEMENT_RUNS("statement_runs");

    private final String table;

    LeasedTable(String table) {
        this.table = table;
    }

    public String table() {
        return table;
    }
}
