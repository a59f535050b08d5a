package io.paycallback.statement;

import io.paycallback.channel.ChannelId;
import io.paycallback.retry.Scanner;
import io.paycallback.testsupport.Db;
import io.paycallback.testsupport.Ids;
import io.paycallback.testsupport.Providers;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The statement phase of deploy/bench (not part of the test suite: run by name). A WeChat Pay bill of
 * {@code statement.bench.lines} payments (default 1,000,000), written by the loopback fake while it serves it, against
 * as many PAID orders (every 10,000th missing, so the run also writes discrepancies): one run fetches, verifies,
 * stages and compares it, timed from its enrolment to its finish. Run it with the deployed heap:
 * {@code ./mvnw test -Dtest=StatementBench -DargLine=-Xmx128m}. Writes target/statement-bench.tsv.
 */
@QuarkusTest
class StatementBench {

    private static final long LINES = Long.getLong("statement.bench.lines", 1_000_000);

    @Inject
    Pool pool;
    @Inject
    Scanner scanner;
    @Inject
    StatementSchedule schedule;

    @Test
    void aMillionLineBillIsComparedInOneRun() throws IOException {
        Db db = new Db(pool);
        LocalDate date = new StatementLedger(db).freshDate(ChannelId.WXPAY);
        String prefix = Ids.unique("B").substring(0, 12);
        long started = System.nanoTime();
        for (String sql : new String[]{"""
                INSERT INTO orders (merchant_id, out_trade_no, amount, currency, status, channel, channel_trade_no, paid_at,
                                    created_at, updated_at)
                SELECT 'default', CONCAT(?, seq), 1.00, 'CNY', 'PAID', 'wxpay', CONCAT('4200', ?, seq), ?, ?, ?
                FROM seq_1_to_%d WHERE seq MOD 10000 <> 0""", """
                INSERT INTO pay_callback_log (merchant_id, channel, channel_trade_no, out_trade_no, trade_state, amount,
                    currency, origin, status, retry_count, next_retry_at, raw_body, created_at, updated_at)
                SELECT 'default', 'wxpay', CONCAT('4200', ?, seq), CONCAT(?, seq), 'SUCCESS', 1.00, 'CNY', 'callback', 3,
                       0, ?, '', ?, ?
                FROM seq_1_to_%d WHERE seq MOD 10000 <> 0"""}) {
            var at = StatementLedger.noon(ChannelId.WXPAY, date);
            db.update(sql.formatted(LINES), prefix, prefix, at, at, at);
        }
        double setup = (System.nanoTime() - started) / 1e9;
        new Providers().generatedWxBill(date, prefix, LINES);

        long start = System.nanoTime();
        schedule.enrol(ChannelId.WXPAY, date);
        Row run = StatementLedger.drained(scanner, () -> db.first("SELECT id, status, retry_count, state, last_error,"
                + " lines_compared FROM statement_runs WHERE channel = 'wxpay' AND bill_date = ?", date));
        double seconds = (System.nanoTime() - start) / 1e9;

        assertThat(run.getString("last_error")).isNull();
        assertThat(run.getLong("lines_compared")).isEqualTo(LINES);
        long discrepancies = db.count("SELECT COUNT(*) FROM statement_discrepancies WHERE run_id = ?", run.getLong("id"));
        assertThat(discrepancies).isEqualTo(LINES / 10_000);
        long peakHeap = 0;
        for (MemoryPoolMXBean memory : ManagementFactory.getMemoryPoolMXBeans()) {
            if (memory.getType() == MemoryType.HEAP) {
                peakHeap += memory.getPeakUsage().getUsed();
            }
        }
        String line = "lines\t" + LINES + "\nseconds\t" + String.format("%.1f", seconds) + "\nlines_per_s\t"
                + Math.round(LINES / seconds) + "\ndiscrepancies\t" + discrepancies + "\nmax_heap_mb\t"
                + Runtime.getRuntime().maxMemory() / (1024 * 1024) + "\npeak_heap_mb\t" + peakHeap / (1024 * 1024)
                + "\nsetup_seconds\t" + String.format("%.1f", setup) + "\n";
        Files.writeString(Path.of("target/statement-bench.tsv"), line);
        System.out.print(line);
    }
}
