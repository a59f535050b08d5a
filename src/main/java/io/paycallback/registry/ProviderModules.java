package io.paycallback.registry;

import io.paycallback.trade.ChannelId;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/** Every provider's module, found by the provider's id: the one list a new provider is added to. */
final class ProviderModules {

    private static final List<ProviderModule<?>> ALL = List.of(new WxPayModule(), new AlipayModule(), new StripeModule());
    private static final Map<ChannelId, ProviderModule<?>> BY_ID = new EnumMap<>(ChannelId.class);

    static {
        ALL.forEach(module -> BY_ID.put(module.id(), module));
        for (ChannelId id : ChannelId.values()) {
            if (!BY_ID.containsKey(id)) {
                throw new IllegalStateException("no provider module for " + id);
            }
        }
    }

    private ProviderModules() {
    }

    static List<ProviderModule<?>> all() {
        return ALL;
    }

    static ProviderModule<?> of(ChannelId id) {
        return BY_ID.get(id);
    }
}
