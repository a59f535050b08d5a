package io.paycallback.fault;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One scenario's rows (its orders are {@code F<scenario>-<n>}, see {@link Load#payments}) read back from whichever
 * database a fault tier runs on, and the guarantee every scenario ends with.
 */
final class ScenarioRows {

    interface Connector {
        Connection connect() throws SQLException;
    }

    private final Connector database;

    ScenarioRows(Connector database) {
        this.database = database;
    }

    int pending(String scenario) throws SQLException {
        return count("SELECT (SELECT COUNT(*) FROM pay_callback_log WHERE status = 0 AND out_trade_no LIKE ?)"
                + " + (SELECT COUNT(*) FROM refund_callback_log WHERE status = 0 AND out_trade_no LIKE ?)"
                + " + (SELECT COUNT(*) FROM outbox WHERE status = 0 AND out_trade_no LIKE ?)", scenario, 3);
    }

    int leased(String scenario) throws SQLException {
        return count("SELECT (SELECT COUNT(*) FROM pay_callback_log WHERE status = 0 AND lease_token IS NOT NULL AND out_trade_no LIKE ?)"
                + " + (SELECT COUNT(*) FROM outbox WHERE status = 0 AND lease_token IS NOT NULL AND out_trade_no LIKE ?)", scenario, 2);
    }

    void awaitNothingPending(String scenario) throws Exception {
        Instant deadline = Instant.now().plusSeconds(90);
        while (pending(scenario) > 0 && Instant.now().isBefore(deadline)) {
            Thread.sleep(250);
        }
    }

    /**
     * Waits until nothing of the scenario is pending, then checks the guarantee: every acknowledged callback stored,
     * every order with a stored callback PAID with exactly one delivered order.paid row and one distinct
     * Idempotency-Key at the sink, nothing pending. Closes the load.
     *
     * @return the figures: acknowledged callbacks, stored rows, PAID orders, distinct order.paid keys, answers by status
     */
    Map<String, Object> converge(String scenario, Load load, List<Load.Payment> payments, FailingSink sink) throws Exception {
        awaitNothingPending(scenario);
        Map<String, String> orderOfTrade = payments.stream().collect(Collectors.toMap(Load.Payment::tradeNo, Load.Payment::outTradeNo));
        Set<String> stored = strings("SELECT channel_trade_no FROM pay_callback_log WHERE out_trade_no LIKE ?", scenario);
        Set<String> paid = strings("SELECT out_trade_no FROM orders WHERE status = 'PAID' AND out_trade_no LIKE ?", scenario);
        Map<String, Integer> paidEvents = counts("SELECT out_trade_no, COUNT(*) FROM outbox WHERE type = 'order.paid'"
                + " AND destination = 'sink' AND status = 1 AND out_trade_no LIKE ? GROUP BY out_trade_no", scenario);
        Map<String, Set<String>> sinkKeys = new HashMap<>();
        sink.delivered().forEach((key, order) -> {
            if (order.startsWith("F" + scenario + "-")) {
                sinkKeys.computeIfAbsent(order, o -> new HashSet<>()).add(key);
            }
        });
        Set<String> ackedOrders = load.acknowledged().stream().map(orderOfTrade::get).collect(Collectors.toSet());
        Set<String> storedOrders = stored.stream().map(orderOfTrade::get).collect(Collectors.toSet());

        Map<String, Object> figure = new LinkedHashMap<>();
        figure.put("sent", load.sent().size());
        figure.put("acknowledged", load.acknowledged().size());
        figure.put("stored", stored.size());
        figure.put("paid", paid.size());
        figure.put("events", sinkKeys.values().stream().mapToInt(Set::size).sum());
        figure.put("answers", load.answers());
        figure.put("pending", pending(scenario));
        load.close();

        assertThat(stored).as("acknowledged but not stored").containsAll(load.acknowledged());
        assertThat(paid).as("orders with a stored callback, all PAID").containsAll(storedOrders).containsAll(ackedOrders);
        assertThat(paidEvents.keySet()).as("one delivered order.paid row per paid order").isEqualTo(paid);
        assertThat(paidEvents.values()).allMatch(n -> n == 1);
        assertThat(sinkKeys.keySet()).as("the sink got every paid order's event").isEqualTo(paid);
        assertThat(sinkKeys.values()).as("exactly one distinct order.paid key per order").allMatch(k -> k.size() == 1);
        assertThat(pending(scenario)).as("pending at the end").isZero();
        assertThat(count("SELECT COUNT(*) FROM pay_callback_log WHERE status <> 1 AND out_trade_no LIKE ?", scenario, 1)).isZero();
        return figure;
    }

    /** A count, with every {@code ?} bound to the scenario's order pattern. */
    int count(String sql, String scenario, int parameters) throws SQLException {
        try (Connection connection = database.connect(); PreparedStatement statement = connection.prepareStatement(sql)) {
            for (int i = 1; i <= parameters; i++) {
                statement.setString(i, "F" + scenario + "-%");
            }
            try (ResultSet rows = statement.executeQuery()) {
                rows.next();
                return rows.getInt(1);
            }
        }
    }

    Set<String> strings(String sql, String scenario) throws SQLException {
        Set<String> values = new HashSet<>();
        read(sql, scenario, rows -> values.add(rows.getString(1)));
        return values;
    }

    Map<String, Integer> counts(String sql, String scenario) throws SQLException {
        Map<String, Integer> values = new HashMap<>();
        read(sql, scenario, rows -> values.put(rows.getString(1), rows.getInt(2)));
        return values;
    }

    Map<String, BigDecimal> decimals(String sql, String scenario) throws SQLException {
        Map<String, BigDecimal> values = new HashMap<>();
        read(sql, scenario, rows -> values.put(rows.getString(1), rows.getBigDecimal(2)));
        return values;
    }

    private interface RowReader {
        void read(ResultSet rows) throws SQLException;
    }

    private void read(String sql, String scenario, RowReader reader) throws SQLException {
        try (Connection connection = database.connect(); PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.setString(1, "F" + scenario + "-%");
            try (ResultSet rows = statement.executeQuery()) {
                while (rows.next()) {
                    reader.read(rows);
                }
            }
        }
    }
}
