package io.paycallback.provider;

import io.paycallback.trade.ChannelId;

import java.time.LocalDate;

/** A provider's trade bills for one merchant's keys: the statement reconciliation's source. */
public interface StatementClient {

    ChannelId channel();

    /**
     * Applies for the bill of {@code billDate} (the provider's own day) and opens its download. Blocks: call it on a
     * worker thread. Fails with {@link ProviderException}, like every provider call.
     */
    TradeBill tradeBill(String merchantId, LocalDate billDate);
}
