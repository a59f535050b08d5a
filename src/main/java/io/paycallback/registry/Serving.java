package io.paycallback.registry;

import io.paycallback.channel.Channel;
import io.paycallback.channel.Endpoint;
import io.paycallback.provider.ProviderApi;
import io.paycallback.provider.ProviderClients;
import io.paycallback.trade.ChannelId;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The channels and the provider clients of one registry version, built by each provider's module from what is served:
 * enabled merchants and platforms, a sub-merchant only while its platform is enabled and has that provider's keys.
 * A platform's keys are served under its id with every sub-merchant it has (none yet is still a platform's endpoint,
 * which holds what it receives), and under each sub-merchant's merchant id with that sub-merchant only.
 */
final class Serving {

    /** Every provider's channel and API client of one registry version. */
    record Built(Map<ChannelId, Channel> channels, Map<ChannelId, ProviderApi> clients) {
    }

    private Serving() {
    }

    /** @throws IllegalArgumentException naming the key at fault */
    static Built build(RegistryContent content, Instant now, Clock clock, ProviderClients.Context context,
                       ParsedKeys parsed) {
        Map<ChannelId, Channel> channels = new EnumMap<>(ChannelId.class);
        Map<ChannelId, ProviderApi> clients = new EnumMap<>(ChannelId.class);
        for (ProviderModule<?> module : ProviderModules.all()) {
            build(module, content, now, clock, context, parsed, channels, clients);
        }
        return new Built(channels, clients);
    }

    private static <K extends ProviderKeys> void build(ProviderModule<K> module, RegistryContent content, Instant now,
                                                       Clock clock, ProviderClients.Context context, ParsedKeys parsed,
                                                       Map<ChannelId, Channel> channels, Map<ChannelId, ProviderApi> clients) {
        List<ProviderModule.Served<K>> served = new ArrayList<>();
        List<ProviderModule.Caller<K>> callers = new ArrayList<>();
        Map<String, Map<String, String>> subMerchants = new HashMap<>();
        List<MerchantEntry> merchants = content.merchants().values().stream().filter(MerchantEntry::enabled)
                .sorted(Comparator.comparing(MerchantEntry::id)).toList();
        for (MerchantEntry merchant : merchants) {
            Account account = merchant.accounts().get(module.id());
            if (account instanceof Account.Direct direct) {
                K keys = module.cast(direct.keys());
                String section = section(merchant.source(), OwnerKind.MERCHANT, merchant.id());
                served.add(new ProviderModule.Served<>(merchant.id(), section, keys, Endpoint.DIRECT));
                callers.add(new ProviderModule.Caller<>(merchant.id(), section, keys, Optional.empty()));
            } else if (account instanceof Account.SubMerchant sub) {
                Optional<PlatformEntry> platform = servingPlatform(content, sub);
                if (platform.isEmpty()) {
                    continue;
                }
                String other = subMerchants.computeIfAbsent(sub.platform(), id -> new TreeMap<>())
                        .putIfAbsent(sub.subId(), merchant.id());
                if (other != null) {
                    throw new IllegalArgumentException(module.id().path() + " sub-merchant " + sub.subId() + " of platform "
                            + sub.platform() + " is claimed by merchants " + other + " and " + merchant.id()
                            + ": the notices about it can belong to one merchant only");
                }
                callers.add(new ProviderModule.Caller<>(merchant.id(), section(platform.get().source(), OwnerKind.PLATFORM,
                        sub.platform()), module.cast(platform.get().keys().get(module.id())), Optional.of(sub)));
            }
        }
        content.platforms().values().stream().filter(PlatformEntry::enabled).filter(p -> p.keys().containsKey(module.id()))
                .sorted(Comparator.comparing(PlatformEntry::id)).forEach(platform -> {
                    K keys = module.cast(platform.keys().get(module.id()));
                    String section = section(platform.source(), OwnerKind.PLATFORM, platform.id());
                    Map<String, String> subs = subMerchants.getOrDefault(platform.id(), Map.of());
                    served.add(new ProviderModule.Served<>(platform.id(), section, keys, new Endpoint.Platform(subs)));
                    subs.forEach((subId, merchantId) -> served.add(new ProviderModule.Served<>(merchantId, section, keys,
                            new Endpoint.Platform(Map.of(subId, merchantId)))));
                });
        Channel channel = module.channel(served, now, clock, context, parsed);
        channels.put(module.id(), channel);
        clients.put(module.id(), module.client(context, channel, callers, parsed));
    }

    /** The platform a sub-merchant is served through, when it is enabled and has that provider's keys. */
    static Optional<PlatformEntry> servingPlatform(RegistryContent content, Account.SubMerchant sub) {
        return content.platform(sub.platform()).filter(PlatformEntry::enabled)
                .filter(platform -> platform.keys().containsKey(sub.provider()));
    }

    /** Where an owner's keys are declared, as errors name them. */
    static String section(Source source, OwnerKind kind, String id) {
        String plural = kind == OwnerKind.MERCHANT ? "merchants." : "platforms.";
        return (source == Source.CONFIGURATION ? "paycallback." : "") + plural + id;
    }
}
