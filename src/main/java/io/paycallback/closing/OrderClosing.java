package io.paycallback.closing;

import io.paycallback.inbox.CallbackTable;
import io.paycallback.lease.RowLease;
import io.paycallback.lease.LeaseProcessor;
import io.paycallback.lease.LeasedRow;
import io.paycallback.lease.Worker;
import io.paycallback.order.Order;
import io.paycallback.order.OrderStatus;
import io.paycallback.order.Orders;
import io.paycallback.provider.ProviderClients;
import io.paycallback.provider.ProviderConfig;
import io.paycallback.tracing.Traceparent;
import io.quarkus.scheduler.Scheduled;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.logging.Logger;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Closing an order: at its providers first (through a close request and {@link CloseHandler}), here only when the
 * merchant has no provider API keys. The order service's close waits for the first try; auto-expiry hands it to a
 * worker. Blocking: worker threads only.
 */
@ApplicationScoped
public class OrderClosing {

    private static final Logger LOG = Logger.getLogger(OrderClosing.class);

    /** The source of a close the service made by itself, as close_requests.requested_by shows it. */
    public static final String EXPIRY = "expiry";

    /** What a close came to, for the caller. */
    public enum Reached {
        /** Closed at every provider (or never created there): CLOSED. */
        CLOSED,
        /** No provider API keys for the merchant: closed here only, as before the provider loop. */
        CLOSED_HERE_ONLY,
        /** A provider was not reached: CLOSING, the close request retried on the backoff. */
        CLOSING,
        /** The order is not PENDING (or a provider said paid, and it is PAID now). */
        NOT_PENDING,
        NOT_FOUND
    }

    /** @param order the order after the close, when it exists */
    public record ClosingOutcome(Reached result, Optional<Order> order) {
    }

    private final Pool pool;
    private final Orders orders;
    private final CloseRequests requests;
    private final ProviderClients providers;
    private final LeaseProcessor processor;
    private final Worker worker;
    private final Duration timeout;
    private final ClosingConfig settings;

    public OrderClosing(Pool pool, Orders orders, CloseRequests requests, ProviderClients providers,
                        LeaseProcessor processor, Worker worker, ProviderConfig providerConfig,
                        ClosingConfig config) {
        this.pool = pool;
        this.orders = orders;
        this.requests = requests;
        this.providers = providers;
        this.processor = processor;
        this.worker = worker;
        this.timeout = providerConfig.timeout().multipliedBy(2);
        this.settings = config;
    }

    /**
     * Closes the order and waits for the first try at the providers, so the caller learns CLOSED, PAID or CLOSING.
     *
     * @param requestedBy who asked (the caller's token name), kept on the close request
     */
    public ClosingOutcome close(String merchantId, String outTradeNo, String requestedBy) {
        if (providers.forMerchant(merchantId).isEmpty()) {
            boolean closed = orders.close(pool, merchantId, outTradeNo).await().atMost(timeout);
            return closed ? new ClosingOutcome(Reached.CLOSED_HERE_ONLY, current(merchantId, outTradeNo)) : notClosing(merchantId, outTradeNo);
        }
        Optional<RowLease> lease = start(merchantId, outTradeNo, requestedBy);
        if (lease.isEmpty()) {
            return notClosing(merchantId, outTradeNo);
        }
        // The first try here, on this thread; a payment it found is settled here too, so the answer can say PAID.
        for (LeasedRow next : processor.process(lease.get())) {
            if (next.lease().table().equals(CallbackTable.PAYMENT.leased())) {
                processor.process(List.of(next)).forEach(worker::process);
            } else {
                worker.process(next);
            }
        }
        Optional<Order> order = current(merchantId, outTradeNo);
        OrderStatus status = order.map(Order::status).orElse(OrderStatus.CLOSING);
        return new ClosingOutcome(status == OrderStatus.CLOSED ? Reached.CLOSED
                : status == OrderStatus.CLOSING ? Reached.CLOSING : Reached.NOT_PENDING, order);
    }

    /** PENDING → CLOSING and the close request, leased to this caller, in one transaction; empty when not PENDING. */
    private Optional<RowLease> start(String merchantId, String outTradeNo, String requestedBy) {
        // Read here, on the caller's thread: the transaction's steps run where its connection's context is.
        Optional<Traceparent> cause = Traceparent.current();
        return pool.withTransaction(tx -> orders.startClosing(tx, merchantId, outTradeNo).flatMap(started -> started
                ? requests.insertLeased(tx, merchantId, outTradeNo, requestedBy, cause, processor.leaseTime())
                .map(Optional::of)
                : Uni.createFrom().item(Optional.<RowLease>empty()))).await().atMost(timeout);
    }

    private ClosingOutcome notClosing(String merchantId, String outTradeNo) {
        Optional<Order> order = current(merchantId, outTradeNo);
        if (order.isEmpty()) {
            return new ClosingOutcome(Reached.NOT_FOUND, order);
        }
        return new ClosingOutcome(order.get().status() == OrderStatus.CLOSING ? Reached.CLOSING : Reached.NOT_PENDING, order);
    }

    private Optional<Order> current(String merchantId, String outTradeNo) {
        return orders.find(pool, merchantId, outTradeNo).await().atMost(timeout);
    }

    @Scheduled(every = "${paycallback.retry.scan-interval}", delayed = "${paycallback.retry.scan-delay}",
            concurrentExecution = Scheduled.ConcurrentExecution.SKIP, skipExecutionIf = Scheduled.ApplicationNotRunning.class)
    void sweep() {
        if (settings.expireAfter().isEmpty()) {
            return;
        }
        try {
            expire();
        } catch (RuntimeException e) {
            LOG.warnf("Closing expired orders failed, the next sweep retries: %s", e.toString());
        }
    }

    /**
     * Closes PENDING orders older than {@code orders.expire-after} the same way, each first try on a worker; blocking,
     * for the scheduler and for tests. Several instances may run it at once: only one moves an order to CLOSING.
     *
     * @return how many orders it started closing
     */
    public int expire() {
        Duration age = settings.expireAfter().orElseThrow();
        int started = 0;
        for (Orders.Key key : orders.pendingOlderThan(pool, age, settings.expireBatch()).await().atMost(timeout)) {
            if (providers.forMerchant(key.merchantId()).isEmpty()) {
                if (orders.close(pool, key.merchantId(), key.outTradeNo()).await().atMost(timeout)) {
                    started++;
                }
                continue;
            }
            Optional<RowLease> lease = start(key.merchantId(), key.outTradeNo(), EXPIRY);
            if (lease.isPresent()) {
                worker.process(lease.get());
                started++;
            }
        }
        if (started > 0) {
            LOG.infof("Closing %d PENDING orders older than %s", started, age);
        }
        return started;
    }
}
