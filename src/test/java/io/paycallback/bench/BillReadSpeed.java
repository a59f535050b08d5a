package io.paycallback.bench;

import io.paycallback.statement.bill.AlipayTradeBill;
import io.paycallback.statement.bill.BillFiles;
import io.paycallback.statement.bill.BillTotals;
import io.paycallback.statement.bill.WxPayTradeBill;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;

/**
 * How fast the bill readers go on a big merchant's day: writes a WeChat bill (gzip, with its SHA-1) and an Alipay ZIP
 * of N lines to temporary files, then reads each with a sink that only counts. A speed check to run by hand under the
 * deployed heap, not a timed test:
 * <pre>
 *   ./mvnw -B -q test-compile dependency:build-classpath -Dmdep.outputFile=target/cp.txt
 *   java -Xmx128m -cp target/test-classes:target/classes:$(cat target/cp.txt) io.paycallback.bench.BillReadSpeed 1000000
 * </pre>
 */
public final class BillReadSpeed {

    private BillReadSpeed() {
    }

    public static void main(String[] args) throws Exception {
        long lines = args.length > 0 ? Long.parseLong(args[0]) : 1_000_000;
        Path dir = Files.createTempDirectory("bill-speed");
        cpuStart = THREADS.getCurrentThreadCpuTime();
        try {
            Path wx = dir.resolve("wxpay.csv.gz");
            long start = System.nanoTime();
            cpuStart = THREADS.getCurrentThreadCpuTime();
            BillFiles.Written written;
            try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(wx), 1 << 16)) {
                written = BillFiles.wxPayGzip(BillFiles.synthetic(lines, BillFiles.Flavour.WXPAY),
                        BillFiles.WxOptions.standard(), out);
            }
            report("wxpay write", lines, start, Files.size(wx));
            for (int round = 1; round <= 3; round++) {
                AtomicLong seen = new AtomicLong();
                start = System.nanoTime();
                cpuStart = THREADS.getCurrentThreadCpuTime();
            cpuStart = THREADS.getCurrentThreadCpuTime();
                BillTotals totals;
                try (InputStream in = new BufferedInputStream(Files.newInputStream(wx), 1 << 16)) {
                    totals = WxPayTradeBill.readGzip(in, written.sha1Hex(), line -> seen.incrementAndGet());
                }
                check(seen.get(), totals, lines);
                report("wxpay read gzip+sha1 #" + round, lines, start, Files.size(wx));
            }

            Path alipay = dir.resolve("alipay.csv.zip");
            start = System.nanoTime();
            cpuStart = THREADS.getCurrentThreadCpuTime();
            try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(alipay), 1 << 16)) {
                BillFiles.alipay(BillFiles.synthetic(lines, BillFiles.Flavour.ALIPAY),
                        BillFiles.AlipayOptions.standard(), out);
            }
            report("alipay write", lines, start, Files.size(alipay));
            for (int round = 1; round <= 3; round++) {
                AtomicLong seen = new AtomicLong();
                start = System.nanoTime();
                cpuStart = THREADS.getCurrentThreadCpuTime();
            cpuStart = THREADS.getCurrentThreadCpuTime();
                BillTotals totals;
                try (InputStream in = new BufferedInputStream(Files.newInputStream(alipay), 1 << 16)) {
                    totals = AlipayTradeBill.read(in, line -> seen.incrementAndGet());
                }
                check(seen.get(), totals, lines);
                report("alipay read zip #" + round, lines, start, Files.size(alipay));
            }
            Runtime rt = Runtime.getRuntime();
            System.out.printf("max heap %d MB%n", rt.maxMemory() >> 20);
        } finally {
            try (var files = Files.list(dir)) {
                for (Path file : (Iterable<Path>) files::iterator) {
                    Files.delete(file);
                }
            }
            Files.delete(dir);
        }
    }

    private static void check(long seen, BillTotals totals, long lines) {
        if (seen != lines || totals.paymentCount() + totals.refundCount() != lines) {
            throw new IllegalStateException("read " + seen + " lines of " + lines);
        }
    }

    private static long cpuStart;

    /**
     * Wall time, and the CPU time of this thread: on a machine shared with other work the wall figure measures the
     * neighbours as much as the reader, the CPU figure does not.
     */
    private static void report(String what, long lines, long startNanos, long bytes) {
        double seconds = (System.nanoTime() - startNanos) / 1e9;
        long cpuNow = THREADS.getCurrentThreadCpuTime();
        double cpu = (cpuNow - cpuStart) / 1e9;
        cpuStart = cpuNow;
        System.out.printf("%-28s %,d lines in %.2f s wall = %,.0f lines/s; %.2f s CPU = %,.0f lines/CPU-s (file %,d bytes)%n",
                what, lines, seconds, lines / seconds, cpu, lines / cpu, bytes);
    }

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
}
