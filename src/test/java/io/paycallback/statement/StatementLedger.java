package io.paycallback.statement;

import io.paycallback.lease.Scanner;
import io.paycallback.statement.bill.BillFiles;
import io.paycallback.statement.bill.BillLine;
import io.paycallback.testsupport.Db;
import io.paycallback.testsupport.ProviderKeys;
import io.paycallback.trade.ChannelId;
import io.vertx.mutiny.sqlclient.Row;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;

/**
 * Ledger rows written straight into the tables, dated inside a bill date (the database's clock is UTC here), and bill
 * lines to go with them: what a statement run compares.
 */
final class StatementLedger {

    static final String MERCHANT = ProviderKeys.MERCHANT;

    private final Db db;

    StatementLedger(Db db) {
        this.db = db;
    }

    /**
     * Drains the statement runs until the run has had its try. A try that lost a lock contest to another run (another
     * test's run retrying at the same time) is given back for a second without counting; rather than waiting that
     * second, the run is made due again and drained again.
     */
    static Row drained(Scanner scanner, Db db, Supplier<Row> run) {
        for (int round = 0; ; round++) {
            scanner.drain(StatementRuns.TABLE);
            Row row = run.get();
            if (row.getInteger("status") != 0 || row.getInteger("retry_count") > 0
                    || !"PENDING".equals(row.getString("state")) || round == 5) {
                return row;
            }
            db.update("UPDATE statement_runs SET next_retry_at = NOW(3) WHERE id = ? AND status = 0 AND lease_token IS NULL",
                    row.getLong("id"));
        }
    }

    /** A date no run of the provider has yet, far in the past, so no other suite's rows fall on it. */
    LocalDate freshDate(ChannelId channel) {
        while (true) {
            LocalDate date = LocalDate.of(2001, 1, 1).plusDays(ThreadLocalRandom.current().nextInt(8000));
            if (db.count("SELECT COUNT(*) FROM statement_runs WHERE channel = ? AND bill_date BETWEEN ? AND ?",
                    channel.path(), date.minusDays(4), date.plusDays(4)) == 0) {
                return date;
            }
        }
    }

    /** Noon of the bill date in the provider's zone, as the database writes times. */
    static LocalDateTime noon(ChannelId channel, LocalDate date) {
        return date.atTime(12, 0).atZone(Providers.zone(channel)).withZoneSameInstant(ZoneOffset.UTC).toLocalDateTime();
    }

    /** An order PAID by a processed payment of the provider, stored at {@code at}. */
    void paid(ChannelId channel, String outTradeNo, String tradeNo, String amount, String currency, LocalDateTime at) {
        paid(MERCHANT, channel, outTradeNo, tradeNo, amount, currency, at);
    }

    /** The same, for another merchant. */
    void paid(String merchantId, ChannelId channel, String outTradeNo, String tradeNo, String amount, String currency,
              LocalDateTime at) {
        db.update("""
                INSERT INTO orders (merchant_id, out_trade_no, amount, currency, status, channel, channel_trade_no, paid_at,
                                    created_at, updated_at)
                VALUES (?, ?, ?, ?, 'PAID', ?, ?, ?, ?, ?)""", merchantId, outTradeNo, new BigDecimal(amount), currency,
                channel.path(), tradeNo, at, at, at);
        db.update("""
                INSERT INTO pay_callback_log (merchant_id, channel, channel_trade_no, out_trade_no, trade_state, amount,
                    currency, origin, status, retry_count, next_retry_at, raw_body, created_at, updated_at)
                VALUES (?, ?, ?, ?, 'SUCCESS', ?, ?, 'callback', 1, 0, ?, ?, ?, ?)""", merchantId, channel.path(), tradeNo,
                outTradeNo, new BigDecimal(amount), currency, at, "{}".getBytes(StandardCharsets.UTF_8), at, at);
    }

    /** An order registered here and not paid. */
    void pending(String outTradeNo, String amount, String currency) {
        LocalDateTime now = LocalDateTime.now(ZoneOffset.UTC);
        db.update("""
                INSERT INTO orders (merchant_id, out_trade_no, amount, currency, status, created_at, updated_at)
                VALUES (?, ?, ?, ?, 'PENDING', ?, ?)""", MERCHANT, outTradeNo, new BigDecimal(amount), currency, now, now);
    }

    /** A refund of a paid order that SUCCEEDED at {@code at}. */
    void refunded(ChannelId channel, String refundNo, String refundId, String outTradeNo, String tradeNo, String amount,
                  String currency, LocalDateTime at) {
        db.update("""
                INSERT INTO refunds (merchant_id, channel, refund_no, channel_refund_id, out_trade_no, channel_trade_no,
                                     amount, currency, status, reason, created_at, updated_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'SUCCEEDED', 'customer', ?, ?)""", MERCHANT, channel.path(), refundNo,
                refundId, outTradeNo, tradeNo, new BigDecimal(amount), currency, at, at);
    }

    static BillLine payment(String outTradeNo, String tradeNo, String amount, String currency, BillLine.State state) {
        return new BillLine(BillLine.Kind.PAYMENT, outTradeNo, tradeNo, null, null, new BigDecimal(amount), currency,
                state, 0);
    }

    static BillLine refund(String outTradeNo, String tradeNo, String refundNo, String refundId, String amount,
                           String currency, BillLine.State state) {
        return new BillLine(BillLine.Kind.REFUND, outTradeNo, tradeNo, refundNo, refundId, new BigDecimal(amount),
                currency, state, 0);
    }

    /** Stripe's balance transaction pages of the lines, 100 a page, as the API lists them. */
    static List<byte[]> stripe(List<BillLine> lines) {
        return BillFiles.stripePages(lines.stream().map(BillFiles.StripeMovement::new).toList(), 100);
    }
}
