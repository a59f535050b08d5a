package io.paycallback.submission;

import io.paycallback.channel.Notice;
import io.paycallback.order.RefundStatus;
import io.paycallback.order.Refunds;
import io.paycallback.provider.ProviderClients;
import io.paycallback.trade.ChannelTradeNo;
import io.paycallback.trade.OutTradeNo;
import io.paycallback.trade.RefundNo;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * A refund the provider told us of while it was still pending, that we did not submit (a refund made in the provider's
 * dashboard): recorded as SUBMITTED and asked about on the query schedule exactly like one of ours, so that a refund
 * whose final notice never comes is settled by a query, or alerted after the last one. Its final notice, whenever it
 * comes, settles it under the same key.
 */
@ApplicationScoped
public class PendingRefunds {

    static final String PROVIDER_REASON = "provider";

    private final Pool pool;
    private final Refunds refunds;
    private final ProviderClients providers;

    public PendingRefunds(Pool pool, Refunds refunds, ProviderClients providers) {
        this.pool = pool;
        this.refunds = refunds;
        this.providers = providers;
    }

    /**
     * The refund row and its query row in one transaction; without the merchant's API keys for the provider only the
     * refund row (its final notice settles it).
     *
     * @return false when the refund is known already (ours, or an earlier notice of it): nothing new
     */
    public Uni<Boolean> enrol(Notice.RefundPending pending) {
        Refunds.Refund refund = new Refunds.Refund(pending.merchantId(), pending.channel().path(),
                new RefundNo(pending.refundNo()), pending.channelRefundId(),
                ChannelTradeNo.ofNullable(pending.channelTradeNo()), OutTradeNo.ofNullable(pending.outTradeNo()),
                pending.amount(), null,
                pending.currency(), RefundStatus.SUBMITTED, PROVIDER_REASON);
        boolean query = providers.find(pending.channel(), pending.merchantId()).isPresent();
        return pool.withTransaction(tx -> refunds.request(tx, refund, query));
    }
}
