package io.paycallback.registry;

import io.paycallback.trade.ChannelId;

import java.util.Optional;

/**
 * How a merchant is paid at one provider: with keys of its own, or as a sub-merchant of a named platform, whose keys
 * act for it. Said explicitly, never inferred from what a platform's list holds.
 */
public sealed interface Account {

    ChannelId provider();

    /** A merchant paid on its own keys. */
    record Direct(ProviderKeys keys) implements Account {
        @Override
        public ChannelId provider() {
            return keys.provider();
        }
    }

    /**
     * A sub-merchant of a platform: a Stripe connected account ({@code acct_...}), a WeChat Pay partner's sub-merchant
     * ({@code sub_mchid}) or a merchant that authorised an Alipay third-party application ({@code auth_app_id}, with
     * the {@code app_auth_token} of that authorisation for calls).
     */
    record SubMerchant(ChannelId provider, String platform, String subId, Optional<String> appAuthToken)
            implements Account {
        @Override
        public String toString() {
            return "SubMerchant[" + provider + ", platform=" + platform + ", subId=" + subId + "]";
        }
    }
}
