package io.paycallback.submission;

import io.paycallback.order.RefundSubmissions;
import io.paycallback.provider.ProviderClients;
import io.paycallback.trade.ChannelId;
import jakarta.enterprise.context.ApplicationScoped;

/** A refund can be submitted where the provider clients hold the merchant's API keys. */
@ApplicationScoped
public class ProviderRefundSubmissions implements RefundSubmissions {

    private final ProviderClients providers;

    public ProviderRefundSubmissions(ProviderClients providers) {
        this.providers = providers;
    }

    @Override
    public boolean canSubmit(ChannelId provider, String merchantId) {
        return providers.find(provider, merchantId).isPresent();
    }
}
