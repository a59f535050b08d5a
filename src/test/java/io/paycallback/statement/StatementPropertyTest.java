package io.paycallback.statement;

import io.paycallback.lease.Scanner;
import io.paycallback.statement.bill.BillFiles;
import io.paycallback.statement.bill.BillLine;
import io.paycallback.testsupport.Db;
import io.paycallback.testsupport.Ids;
import io.paycallback.testsupport.Providers;
import io.paycallback.trade.ChannelId;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;

import static io.paycallback.statement.StatementLedger.noon;
import static io.paycallback.statement.StatementLedger.payment;
import static io.paycallback.statement.StatementLedger.refund;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Random ledgers, and bills derived from them into which a difference of every kind the provider's format can carry
 * is injected: each run must find exactly the injected discrepancies, nothing more. The seed is printed with a
 * failure, so a failing ledger can be built again.
 */
@QuarkusTest
class StatementPropertyTest {

    private static final int TRIALS_PER_PROVIDER = 3;

    @Inject
    Pool pool;
    @Inject
    Scanner scanner;
    @Inject
    StatementSchedule schedule;

    private final Providers providers = new Providers();

    /** What one scenario adds: our rows, its bill lines, and the discrepancy it must yield (null: none). */
    private record Case(List<BillLine> lines, String expected) {
    }

    @Test
    void eachRunFindsExactlyTheInjectedDifferences() {
        Db db = new Db(pool);
        StatementLedger ledger = new StatementLedger(db);
        long seed = System.nanoTime();
        Random random = new Random(seed);
        for (ChannelId channel : ChannelId.values()) {
            for (int trial = 0; trial < TRIALS_PER_PROVIDER; trial++) {
                LocalDate date = ledger.freshDate(channel);
                List<BillLine> lines = new ArrayList<>();
                Set<String> expected = new HashSet<>();
                int items = 10 + random.nextInt(30);
                for (int i = 0; i < items; i++) {
                    Case made = scenario(channel, random, ledger, noon(channel, date).plusMinutes(i));
                    lines.addAll(made.lines());
                    if (made.expected() != null) {
                        expected.add(made.expected());
                    }
                }
                serve(channel, date, lines);
                schedule.enrol(channel, date);
                StatementLedger.drained(scanner, db, () -> db.first("SELECT id, status, retry_count, state FROM statement_runs"
                        + " WHERE channel = ? AND bill_date = ?", channel.path(), date));
                Set<String> found = db.rows("""
                                SELECT d.kind, d.item, d.ident FROM statement_discrepancies d JOIN statement_runs r ON r.id = d.run_id
                                WHERE r.channel = ? AND r.bill_date = ? AND r.status = 1""", channel.path(), date)
                        .stream().map(row -> row.getString("kind") + " " + row.getString("item") + " " + row.getString("ident"))
                        .collect(Collectors.toSet());
                assertThat(found).as("seed %d, %s %s", seed, channel, date).isEqualTo(expected);
            }
        }
    }

    private Case scenario(ChannelId channel, Random random, StatementLedger ledger, LocalDateTime at) {
        String currency = channel == ChannelId.STRIPE ? "USD" : "CNY";
        String order = Ids.unique("P");
        String trade = tradeNo(channel, order);
        String amount = BigDecimal.valueOf(100 + random.nextInt(99_900), 2).toPlainString();
        String other = new BigDecimal(amount).add(BigDecimal.ONE).toPlainString();
        String refundNo = Ids.unique("R");
        String refundId = channel == ChannelId.ALIPAY ? null : (channel == ChannelId.STRIPE ? "re_" : "5030") + refundNo;
        String refundAmount = new BigDecimal(amount).divide(BigDecimal.valueOf(2), 2, RoundingMode.DOWN).toPlainString();
        String lineOrder = channel == ChannelId.STRIPE && random.nextBoolean() ? null : order;
        BillLine booked = payment(lineOrder, trade, amount, currency, BillLine.State.SUCCEEDED);
        String refundLineOrder = channel == ChannelId.STRIPE ? null : order;
        int kinds = channel == ChannelId.ALIPAY ? 10 : 12;
        switch (random.nextInt(kinds)) {
            case 0 -> {
                ledger.paid(channel, order, trade, amount, currency, at);
                return new Case(List.of(booked), null);
            }
            case 1 -> {
                ledger.paid(channel, order, trade, amount, currency, at);
                return new Case(List.of(), "MISSING_AT_PROVIDER PAYMENT " + trade);
            }
            case 2 -> {
                return new Case(List.of(booked), "NOT_REGISTERED PAYMENT " + trade);
            }
            case 3 -> {
                ledger.pending(order, amount, currency);
                return new Case(List.of(payment(order, trade, amount, currency, BillLine.State.SUCCEEDED)),
                        "MISSING_HERE PAYMENT " + trade);
            }
            case 4 -> {
                ledger.paid(channel, order, trade, amount, currency, at);
                return new Case(List.of(payment(lineOrder, trade, other, currency, BillLine.State.SUCCEEDED)),
                        "AMOUNT_DIFFERS PAYMENT " + trade);
            }
            case 5 -> {
                ledger.paid(channel, order, trade, amount, currency, at);
                ledger.refunded(channel, refundNo, refundId, order, trade, refundAmount, currency, at);
                return new Case(List.of(booked, refund(refundLineOrder, trade, refundNo, refundId, refundAmount, currency,
                        BillLine.State.SUCCEEDED)), null);
            }
            case 6 -> {
                ledger.paid(channel, order, trade, amount, currency, at);
                ledger.refunded(channel, refundNo, refundId, order, trade, refundAmount, currency, at);
                return new Case(List.of(booked), "MISSING_AT_PROVIDER REFUND " + refundNo);
            }
            case 7 -> {
                ledger.paid(channel, order, trade, amount, currency, at);
                ledger.refunded(channel, refundNo, refundId, order, trade, refundAmount, currency, at);
                return new Case(List.of(booked, refund(refundLineOrder, trade, refundNo, refundId, "0.01", currency,
                        BillLine.State.SUCCEEDED)), "AMOUNT_DIFFERS REFUND " + refundNo);
            }
            case 8 -> {
                return new Case(List.of(refund(refundLineOrder, trade, refundNo, refundId, refundAmount, currency,
                        BillLine.State.SUCCEEDED)), "NOT_REGISTERED REFUND " + refundNo);
            }
            case 9 -> {
                ledger.paid(channel, order, trade, amount, currency, at);
                return new Case(List.of(booked, refund(refundLineOrder, trade, refundNo, refundId, refundAmount, currency,
                        BillLine.State.SUCCEEDED)), "MISSING_HERE REFUND " + refundNo);
            }
            case 10 -> {
                ledger.paid(channel, order, trade, amount, currency, at);
                ledger.refunded(channel, refundNo, refundId, order, trade, refundAmount, currency, at);
                return new Case(List.of(booked, refund(refundLineOrder, trade, refundNo, refundId, refundAmount, currency,
                        BillLine.State.FAILED)), "STATE_DIFFERS REFUND " + refundNo);
            }
            default -> {
                ledger.paid(channel, order, trade, amount, currency, at);
                if (channel == ChannelId.WXPAY) {
                    return new Case(List.of(payment(order, trade, amount, currency, BillLine.State.REVOKED)),
                            "STATE_DIFFERS PAYMENT " + trade);
                }
                return new Case(List.of(booked), null);
            }
        }
    }

    private static String tradeNo(ChannelId channel, String order) {
        return switch (channel) {
            case WXPAY -> "4200" + order;
            case ALIPAY -> "2026" + order;
            case STRIPE -> "pi_" + order;
        };
    }

    private void serve(ChannelId channel, LocalDate date, List<BillLine> lines) {
        switch (channel) {
            case WXPAY -> {
                BillFiles.WxFile file = BillFiles.wxPay(lines, BillFiles.WxOptions.standard());
                providers.bill("wxpay", date, "ok", file.gzip(), file.sha1Hex());
            }
            case ALIPAY -> providers.bill("alipay", date, "ok", BillFiles.alipay(lines, BillFiles.AlipayOptions.standard()),
                    null);
            case STRIPE -> providers.stripeBill(date, StatementLedger.stripe(lines));
        }
    }
}
