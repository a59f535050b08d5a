package io.paycallback.bench;

import io.paycallback.statement.bill.AlipayTradeBill;
import io.paycallback.statement.bill.BillException;
import io.paycallback.statement.bill.BillFiles;
import io.paycallback.statement.bill.BillSink;
import io.paycallback.statement.bill.BillTotals;
import io.paycallback.statement.bill.WxPayTradeBill;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;

/**
 * How fast the bill readers go on a big merchant's day: writes a WeChat bill (gzip, with its SHA-1) and an Alipay ZIP
 * of N lines to temporary files, then reads each three times with a sink that only counts. A speed check to run by
 * hand under the deployed heap, not a timed test:
 * <pre>
 *   ./mvnw -B -q test-compile dependency:build-classpath -Dmdep.outputFile=target/cp.txt
 *   java -Xmx128m -cp target/test-classes:target/classes:$(cat target/cp.txt) io.paycallback.bench.BillReadSpeed 1000000
 * </pre>
 * Each step prints wall time and the CPU time of the reading thread: on a machine shared with other work the wall
 * figure measures the neighbours as much as the reader, the CPU figure does not (it leaves out the JIT and GC threads).
 */
public final class BillReadSpeed {

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static final int ROUNDS = 3;

    private BillReadSpeed() {
    }

    @FunctionalInterface
    private interface Writer {
        void write(OutputStream out) throws IOException;
    }

    @FunctionalInterface
    private interface Reader {
        BillTotals read(InputStream in, BillSink sink) throws BillException, IOException;
    }

    public static void main(String[] args) throws Exception {
        long lines = args.length > 0 ? Long.parseLong(args[0]) : 1_000_000;
        Path dir = Files.createTempDirectory("bill-speed");
        try {
            String[] sha1 = new String[1];
            measure("wxpay gzip+sha1", lines, dir.resolve("wxpay.csv.gz"),
                    out -> sha1[0] = BillFiles.wxPayGzip(BillFiles.synthetic(lines, BillFiles.Flavour.WXPAY),
                            BillFiles.WxOptions.standard(), out).sha1Hex(),
                    (in, sink) -> WxPayTradeBill.readGzip(in, sha1[0], sink));
            measure("alipay zip", lines, dir.resolve("alipay.csv.zip"),
                    out -> BillFiles.alipay(BillFiles.synthetic(lines, BillFiles.Flavour.ALIPAY),
                            BillFiles.AlipayOptions.standard(), out),
                    AlipayTradeBill::read);
            System.out.printf("max heap %d MB%n", Runtime.getRuntime().maxMemory() >> 20);
        } finally {
            try (var files = Files.list(dir)) {
                for (Path file : (Iterable<Path>) files::iterator) {
                    Files.delete(file);
                }
            }
            Files.delete(dir);
        }
    }

    private static void measure(String name, long lines, Path file, Writer writer, Reader reader) throws Exception {
        Clock clock = new Clock();
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(file), 1 << 16)) {
            writer.write(out);
        }
        clock.report(name + " write", lines, Files.size(file));
        for (int round = 1; round <= ROUNDS; round++) {
            AtomicLong seen = new AtomicLong();
            clock = new Clock();
            BillTotals totals;
            try (InputStream in = new BufferedInputStream(Files.newInputStream(file), 1 << 16)) {
                totals = reader.read(in, line -> seen.incrementAndGet());
            }
            if (seen.get() != lines || totals.paymentCount() + totals.refundCount() != lines) {
                throw new IllegalStateException(name + ": read " + seen.get() + " lines of " + lines);
            }
            clock.report(name + " read #" + round, lines, Files.size(file));
        }
    }

    private static final class Clock {
        private final long wall = System.nanoTime();
        private final long cpu = THREADS.getCurrentThreadCpuTime();

        void report(String what, long lines, long bytes) {
            double wallSeconds = (System.nanoTime() - wall) / 1e9;
            double cpuSeconds = (THREADS.getCurrentThreadCpuTime() - cpu) / 1e9;
            System.out.printf("%-26s %,d lines in %.2f s wall = %,.0f lines/s; %.2f s CPU = %,.0f lines/CPU-s"
                            + " (file %,d bytes)%n",
                    what, lines, wallSeconds, lines / wallSeconds, cpuSeconds, lines / cpuSeconds, bytes);
        }
    }
}
