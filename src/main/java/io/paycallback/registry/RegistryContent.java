package io.paycallback.registry;

import io.paycallback.config.PayCallbackConfig;
import io.paycallback.trade.ChannelId;

import java.time.Instant;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * Every merchant and platform, whole: one immutable value, so an instance serves one version of the registry or the
 * next, never half of a change.
 */
public record RegistryContent(Map<String, MerchantEntry> merchants, Map<String, PlatformEntry> platforms) {

    private static final String MERCHANTS = "paycallback.merchants.";
    private static final String PLATFORMS = "paycallback.platforms.";

    public RegistryContent {
        merchants = Map.copyOf(merchants);
        platforms = Map.copyOf(platforms);
    }

    public static RegistryContent empty() {
        return new RegistryContent(Map.of(), Map.of());
    }

    /**
     * The entries properties declare ({@code paycallback.merchants.*}, {@code paycallback.platforms.*}), checked as a
     * start checks them, naming the key: a sub-merchant names a platform that has the provider's keys and an id the
     * provider gives such sub-merchants, known to its platform once; a merchant is a provider's direct merchant or a
     * sub-merchant there, never both; a platform's id, the last segment of its callback path, is no merchant's.
     *
     * @throws IllegalArgumentException naming the key at fault
     */
    public static RegistryContent fromConfiguration(Map<String, PayCallbackConfig.Merchant> merchants,
                                                    Map<String, PayCallbackConfig.Platform> platforms) {
        platforms.keySet().stream().filter(merchants::containsKey).sorted().findFirst().ifPresent(id -> {
            throw new IllegalArgumentException(PLATFORMS + id + " and " + MERCHANTS + id
                    + " share an id: a callback path's last segment names either a platform or a merchant");
        });
        Map<String, PlatformEntry> platformsById = new HashMap<>();
        platforms.forEach((id, platform) -> {
            Map<ChannelId, ProviderKeys> keys = new EnumMap<>(ChannelId.class);
            ProviderModules.all().forEach(module -> module.platform(platform).ifPresent(k -> keys.put(module.id(), k)));
            platformsById.put(id, new PlatformEntry(id, true, Source.CONFIGURATION, keys));
        });
        Map<String, MerchantEntry> byId = new HashMap<>();
        Map<String, String> claimed = new HashMap<>();
        new TreeMap<>(merchants).forEach((id, merchant) -> {
            Map<ChannelId, Account> accounts = new EnumMap<>(ChannelId.class);
            for (ProviderModule<?> module : ProviderModules.all()) {
                Optional<? extends ProviderKeys> direct = module.direct(merchant);
                Optional<Account.SubMerchant> sub = module.subMerchant(merchant);
                direct.ifPresent(keys -> accounts.put(module.id(), new Account.Direct(keys)));
                if (sub.isPresent()) {
                    checkSubMerchant(id, module, direct.isPresent(), sub.get(), platformsById, claimed);
                    accounts.put(module.id(), sub.get());
                }
            }
            byId.put(id, new MerchantEntry(id, true, Source.CONFIGURATION, accounts));
        });
        return new RegistryContent(byId, platformsById);
    }

    private static void checkSubMerchant(String merchantId, ProviderModule<?> module, boolean direct,
                                         Account.SubMerchant sub, Map<String, PlatformEntry> platforms,
                                         Map<String, String> claimed) {
        String provider = module.id().path();
        String section = MERCHANTS + merchantId + "." + module.subMerchantSection();
        if (direct) {
            throw new IllegalArgumentException(MERCHANTS + merchantId + "." + provider + " and " + section
                    + " exclude each other: a merchant is paid as a merchant of its own or as a platform's sub-merchant");
        }
        if (Optional.ofNullable(platforms.get(sub.platform())).filter(p -> p.keys().containsKey(module.id())).isEmpty()) {
            throw new IllegalArgumentException(section + ".platform names '" + sub.platform() + "', which has no "
                    + PLATFORMS + sub.platform() + "." + provider);
        }
        String key = section + "." + module.subIdProperty();
        module.subIdProblem(sub.subId()).ifPresent(problem -> {
            throw new IllegalArgumentException(key + " " + problem);
        });
        String other = claimed.putIfAbsent(provider + "/" + sub.platform() + "/" + sub.subId(), merchantId);
        if (other != null) {
            throw new IllegalArgumentException(key + " is " + key.replace(MERCHANTS + merchantId, MERCHANTS + other)
                    + " too: the notices about it can belong to one merchant only");
        }
    }

    /**
     * These entries with the database's beside them. An id that properties declare is theirs: a database entry of the
     * same id (made before properties declared it) is shadowed, and returned in {@code shadowed}.
     */
    public RegistryContent withDatabase(RegistryContent database, List<String> shadowed) {
        Map<String, MerchantEntry> allMerchants = new HashMap<>(merchants);
        Map<String, PlatformEntry> allPlatforms = new HashMap<>(platforms);
        database.merchants.forEach((id, entry) -> {
            if (declares(id)) {
                shadowed.add(id);
            } else {
                allMerchants.put(id, entry);
            }
        });
        database.platforms.forEach((id, entry) -> {
            if (declares(id)) {
                shadowed.add(id);
            } else {
                allPlatforms.put(id, entry);
            }
        });
        return new RegistryContent(allMerchants, allPlatforms);
    }

    public boolean declares(String id) {
        return merchants.containsKey(id) || platforms.containsKey(id);
    }

    public Optional<MerchantEntry> merchant(String id) {
        return Optional.ofNullable(merchants.get(id));
    }

    public Optional<PlatformEntry> platform(String id) {
        return Optional.ofNullable(platforms.get(id));
    }

    public RegistryContent with(MerchantEntry merchant) {
        Map<String, MerchantEntry> changed = new HashMap<>(merchants);
        changed.put(merchant.id(), merchant);
        return new RegistryContent(changed, platforms);
    }

    public RegistryContent with(PlatformEntry platform) {
        Map<String, PlatformEntry> changed = new HashMap<>(platforms);
        changed.put(platform.id(), platform);
        return new RegistryContent(merchants, changed);
    }

    /** When the next key still in use retires: the channels must be built again then. */
    public Optional<Instant> nextRetirement(Instant now) {
        return Stream.concat(merchants.values().stream().flatMap(m -> m.accounts().values().stream())
                                .filter(Account.Direct.class::isInstance).map(a -> ((Account.Direct) a).keys()),
                        platforms.values().stream().flatMap(p -> p.keys().values().stream()))
                .flatMap(keys -> rotating(ProviderModules.of(keys.provider()), keys).stream())
                .flatMap(key -> key.retireAt().stream())
                .filter(now::isBefore)
                .min(Comparator.naturalOrder());
    }

    private static <K extends ProviderKeys> List<RotatingKey> rotating(ProviderModule<K> module, ProviderKeys keys) {
        return module.rotating(module.cast(keys));
    }
}
