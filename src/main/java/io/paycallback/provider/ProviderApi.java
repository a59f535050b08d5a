package io.paycallback.provider;

import java.util.Set;

/** One provider's API for every merchant that has API keys there: the calls, and whose keys it holds. */
public interface ProviderApi extends ProviderClient, StatementClient {

    Set<String> merchantIds();

    default boolean serves(String merchantId) {
        return merchantIds().contains(merchantId);
    }
}
