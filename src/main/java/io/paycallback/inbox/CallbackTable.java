package io.paycallback.inbox;

import io.paycallback.channel.CallbackKind;
import io.paycallback.lease.LeasedTable;

import java.util.Arrays;
import java.util.Optional;

/**
 * The two callback log tables, pay_callback_log and refund_callback_log, which are the idempotency tables: each with
 * the kind of notice it holds, its leased table and its name in the admin API.
 * Payments and refunds never share one: their unique keys would collide.
 */
public enum CallbackTable {
    PAYMENT(CallbackKind.PAYMENT, "pay_callback_log", "payment"),
    REFUND(CallbackKind.REFUND, "refund_callback_log", "refund");

    private final CallbackKind kind;
    private final LeasedTable leased;
    private final String apiName;

    CallbackTable(CallbackKind kind, String table, String apiName) {
        this.kind = kind;
        this.leased = new LeasedTable(table, apiName, LeasedTable.Lateness.SINCE_ARRIVAL);
        this.apiName = apiName;
    }

    public String table() {
        return leased.table();
    }

    /** Where housekeeping moves the table's rows past the retention, unchanged and with their ids (V2). */
    public String archiveTable() {
        return leased.table() + "_archive";
    }

    public CallbackKind kind() {
        return kind;
    }

    public LeasedTable leased() {
        return leased;
    }

    public String apiName() {
        return apiName;
    }

    /** The callback log that is this leased table, if it is one. */
    public static Optional<CallbackTable> of(LeasedTable table) {
        return Arrays.stream(values()).filter(log -> log.leased.equals(table)).findFirst();
    }

    public static Optional<CallbackTable> fromApiName(String name) {
        return Arrays.stream(values()).filter(log -> log.apiName.equals(name)).findFirst();
    }
}
