package io.paycallback.registry;

import io.paycallback.trade.ChannelId;

import java.util.EnumMap;
import java.util.Map;

/** A platform: whether it is served, where it is declared, and its own keys at each provider it collects on. */
public record PlatformEntry(String id, boolean enabled, Source source, Map<ChannelId, ProviderKeys> keys) {

    public PlatformEntry {
        keys = keys.isEmpty() ? Map.of() : Map.copyOf(new EnumMap<>(keys));
    }

    public PlatformEntry with(ProviderKeys providerKeys) {
        Map<ChannelId, ProviderKeys> changed = new EnumMap<>(ChannelId.class);
        changed.putAll(keys);
        changed.put(providerKeys.provider(), providerKeys);
        return new PlatformEntry(id, enabled, source, changed);
    }

    public PlatformEntry without(ChannelId provider) {
        Map<ChannelId, ProviderKeys> changed = new EnumMap<>(ChannelId.class);
        changed.putAll(keys);
        changed.remove(provider);
        return new PlatformEntry(id, enabled, source, changed);
    }

    public PlatformEntry enabled(boolean on) {
        return new PlatformEntry(id, on, source, keys);
    }
}
