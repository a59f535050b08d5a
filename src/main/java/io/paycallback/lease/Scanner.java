package io.paycallback.lease;

import io.paycallback.config.PayCallbackConfig;
import io.paycallback.lease.Lease;
import io.paycallback.lease.LeasedTable;
import io.paycallback.lease.Leases;
import io.quarkus.scheduler.Scheduled;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

import java.time.Duration;
import java.util.List;

/**
 * The safety net behind the immediate hand-off: every few seconds, lease what is due in each leased table, in
 * batches, and keep going while batches come back full. Any number of instances may scan at once; the lease decides
 * who works on a row. Catches what the hand-off dropped, what failed and is due again, and what a crashed instance
 * left leased.
 */
@ApplicationScoped
public class Scanner {

    private static final Logger LOG = Logger.getLogger(Scanner.class);

    private final Leases leases;
    private final LeasedTables tables;
    private final Worker worker;
    private final int batchSize;
    private final Duration leaseTime;

    public Scanner(Leases leases, LeasedTables tables, Worker worker, PayCallbackConfig config) {
        this.leases = leases;
        this.tables = tables;
        this.worker = worker;
        this.batchSize = config.retry().batchSize();
        this.leaseTime = config.retry().lease();
    }

    @Scheduled(every = "${paycallback.retry.scan-interval}", delayed = "${paycallback.retry.scan-delay}",
            concurrentExecution = Scheduled.ConcurrentExecution.SKIP, skipExecutionIf = Scheduled.ApplicationNotRunning.class)
    void scan() {
        for (LeasedTable table : tables.all()) {
            try {
                drain(table);
            } catch (RuntimeException e) {
                LOG.warnf("Scan of %s failed, next scan retries: %s", table.table(), e.toString());
            }
        }
    }

    /** @return how many rows were leased */
    public int drain(LeasedTable table) {
        int total = 0;
        List<Lease> batch;
        do {
            if (worker.isShutdown()) {
                return total;
            }
            batch = leases.leaseDue(table, batchSize, leaseTime).await().atMost(leaseTime);
            worker.processAll(batch);
            total += batch.size();
        } while (batch.size() == batchSize);
        return total;
    }
}
