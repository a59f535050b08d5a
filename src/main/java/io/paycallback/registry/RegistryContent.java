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

    /** What the channels and the provider clients are built from: enabled entries only, keys retired by then left out. */
    public record Served(Map<String, PayCallbackConfig.Merchant> merchants, Map<String, PayCallbackConfig.Platform> platforms) {
    }

    public RegistryContent {
        merchants = Map.copyOf(merchants);
        platforms = Map.copyOf(platforms);
    }

    public static RegistryContent empty() {
        return new RegistryContent(Map.of(), Map.of());
    }

    /** The entries properties declare ({@code paycallback.merchants.*}, {@code paycallback.platforms.*}). */
    public static RegistryContent fromConfiguration(Map<String, PayCallbackConfig.Merchant> merchants,
                                                    Map<String, PayCallbackConfig.Platform> platforms) {
        Map<String, MerchantEntry> byId = new HashMap<>();
        merchants.forEach((id, merchant) -> {
            Map<ChannelId, Account> accounts = new EnumMap<>(ChannelId.class);
            merchant.wxpay().ifPresent(keys -> accounts.put(ChannelId.WXPAY, new Account.Direct(wxpay(keys))));
            merchant.alipay().ifPresent(keys -> accounts.put(ChannelId.ALIPAY, new Account.Direct(alipay(keys))));
            merchant.stripe().ifPresent(keys -> accounts.put(ChannelId.STRIPE, new Account.Direct(stripe(keys))));
            merchant.wxpayPartner().ifPresent(partner -> accounts.putIfAbsent(ChannelId.WXPAY,
                    new Account.SubMerchant(ChannelId.WXPAY, partner.platform(), partner.subMchid(), Optional.empty())));
            merchant.alipayIsv().ifPresent(isv -> accounts.putIfAbsent(ChannelId.ALIPAY,
                    new Account.SubMerchant(ChannelId.ALIPAY, isv.platform(), isv.authAppId(), isv.appAuthToken())));
            merchant.stripeConnect().ifPresent(connect -> accounts.putIfAbsent(ChannelId.STRIPE,
                    new Account.SubMerchant(ChannelId.STRIPE, connect.platform(), connect.account(), Optional.empty())));
            byId.put(id, new MerchantEntry(id, true, Source.CONFIGURATION, accounts));
        });
        Map<String, PlatformEntry> platformsById = new HashMap<>();
        platforms.forEach((id, platform) -> {
            Map<ChannelId, ProviderKeys> keys = new EnumMap<>(ChannelId.class);
            platform.wxpay().ifPresent(k -> keys.put(ChannelId.WXPAY, wxpay(k)));
            platform.alipay().ifPresent(k -> keys.put(ChannelId.ALIPAY, alipay(k)));
            platform.stripe().ifPresent(k -> keys.put(ChannelId.STRIPE, stripe(k)));
            platformsById.put(id, new PlatformEntry(id, true, Source.CONFIGURATION, keys));
        });
        return new RegistryContent(byId, platformsById);
    }

    private static ProviderKeys.WxPay wxpay(PayCallbackConfig.WxPay keys) {
        return new ProviderKeys.WxPay(keys.mchid(), keys.apiV3Key(), new TreeMap<>(keys.publicKeys()).entrySet().stream()
                .map(key -> new RotatingKey(key.getKey(), key.getValue(), Optional.empty())).toList(),
                keys.merchantSerial(), keys.merchantPrivateKey());
    }

    private static ProviderKeys.Alipay alipay(PayCallbackConfig.Alipay keys) {
        return new ProviderKeys.Alipay(keys.appId(), keys.publicKey(), keys.appPrivateKey());
    }

    private static ProviderKeys.Stripe stripe(PayCallbackConfig.Stripe keys) {
        return new ProviderKeys.Stripe(keys.webhookSecrets().stream()
                .map(secret -> new RotatingKey(Fingerprint.of(secret), secret, Optional.empty())).toList(), keys.apiKey());
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

    /**
     * The served view at {@code now}: disabled merchants and platforms are left out, and so are the sub-merchants of a
     * platform that is disabled or has no keys at that provider, whose notices are then held until it serves again.
     */
    public Served servedAt(Instant now) {
        Map<String, PayCallbackConfig.Platform> served = new HashMap<>();
        platforms.values().stream().filter(PlatformEntry::enabled).forEach(platform -> served.put(platform.id(),
                new ConfigViews.Platform(
                        Optional.ofNullable((ProviderKeys.Stripe) platform.keys().get(ChannelId.STRIPE)).map(k -> live(k, now)),
                        Optional.ofNullable((ProviderKeys.WxPay) platform.keys().get(ChannelId.WXPAY)).map(k -> live(k, now)),
                        Optional.ofNullable((ProviderKeys.Alipay) platform.keys().get(ChannelId.ALIPAY)).map(ConfigViews::alipay))));
        Map<String, PayCallbackConfig.Merchant> servedMerchants = new HashMap<>();
        merchants.values().stream().filter(MerchantEntry::enabled).forEach(merchant -> {
            Optional<PayCallbackConfig.WxPay> wxpay = Optional.empty();
            Optional<PayCallbackConfig.Alipay> alipay = Optional.empty();
            Optional<PayCallbackConfig.Stripe> stripe = Optional.empty();
            Optional<PayCallbackConfig.StripeConnect> connect = Optional.empty();
            Optional<PayCallbackConfig.WxPayPartner> partner = Optional.empty();
            Optional<PayCallbackConfig.AlipayIsv> isv = Optional.empty();
            for (Account account : merchant.accounts().values()) {
                if (account instanceof Account.Direct direct) {
                    ProviderKeys keys = direct.keys();
                    if (keys instanceof ProviderKeys.WxPay w) {
                        wxpay = Optional.of(live(w, now));
                    } else if (keys instanceof ProviderKeys.Alipay a) {
                        alipay = Optional.of(ConfigViews.alipay(a));
                    } else if (keys instanceof ProviderKeys.Stripe s) {
                        stripe = Optional.of(live(s, now));
                    }
                } else if (account instanceof Account.SubMerchant sub && servesAt(served, sub)) {
                    switch (sub.provider()) {
                        case WXPAY -> partner = Optional.of(new ConfigViews.WxPayPartner(sub.platform(), sub.subId()));
                        case ALIPAY -> isv = Optional.of(new ConfigViews.AlipayIsv(sub.platform(), sub.subId(), sub.appAuthToken()));
                        case STRIPE -> connect = Optional.of(new ConfigViews.StripeConnect(sub.platform(), sub.subId()));
                    }
                }
            }
            servedMerchants.put(merchant.id(), new ConfigViews.Merchant(wxpay, alipay, stripe, connect, partner, isv));
        });
        return new Served(servedMerchants, served);
    }

    private static boolean servesAt(Map<String, PayCallbackConfig.Platform> served, Account.SubMerchant sub) {
        PayCallbackConfig.Platform platform = served.get(sub.platform());
        if (platform == null) {
            return false;
        }
        return switch (sub.provider()) {
            case WXPAY -> platform.wxpay().isPresent();
            case ALIPAY -> platform.alipay().isPresent();
            case STRIPE -> platform.stripe().isPresent();
        };
    }

    private static PayCallbackConfig.WxPay live(ProviderKeys.WxPay keys, Instant now) {
        Map<String, String> publicKeys = new TreeMap<>();
        keys.publicKeys().stream().filter(key -> key.liveAt(now)).forEach(key -> publicKeys.put(key.serial(), key.value()));
        return new ConfigViews.WxPay(keys.mchid(), keys.apiV3Key(), publicKeys, keys.merchantSerial(),
                keys.merchantPrivateKey());
    }

    private static PayCallbackConfig.Stripe live(ProviderKeys.Stripe keys, Instant now) {
        return new ConfigViews.Stripe(keys.webhookSecrets().stream().filter(key -> key.liveAt(now))
                .map(RotatingKey::value).toList(), keys.apiKey());
    }

    /** When the next key still in use retires: the served view must be built again then. */
    public Optional<Instant> nextRetirement(Instant now) {
        return Stream.concat(merchants.values().stream().flatMap(m -> m.accounts().values().stream())
                                .filter(Account.Direct.class::isInstance).map(a -> ((Account.Direct) a).keys()),
                        platforms.values().stream().flatMap(p -> p.keys().values().stream()))
                .flatMap(RegistryContent::rotating)
                .flatMap(key -> key.retireAt().stream())
                .filter(now::isBefore)
                .min(Comparator.naturalOrder());
    }

    private static Stream<RotatingKey> rotating(ProviderKeys keys) {
        if (keys instanceof ProviderKeys.WxPay wxpay) {
            return wxpay.publicKeys().stream();
        }
        if (keys instanceof ProviderKeys.Stripe stripe) {
            return stripe.webhookSecrets().stream();
        }
        return Stream.empty();
    }
}
