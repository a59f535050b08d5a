package io.paycallback.registry;

import io.quarkus.runtime.annotations.RegisterForReflection;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A merchant or platform as operators see it: ids and public values in full, every secret by its fingerprint only.
 *
 * @param source  {@code configuration}: declared in properties, read-only here; {@code database}: made through the API
 */
@RegisterForReflection
public record OwnerView(String id, OwnerKind kind, boolean enabled, Source source, List<AccountView> accounts) {

    /**
     * One provider account.
     *
     * @param mode     {@code direct}, {@code sub-merchant} or {@code platform}
     * @param settings the account's public values (merchant number, app id, Alipay's public key's fingerprint ...)
     */
    @RegisterForReflection
    public record AccountView(String provider, String mode, String platform, String subId, Map<String, String> settings,
                              List<KeyView> keys) {
    }

    /**
     * A key or secret: what it is, its serial where it has one, its fingerprint, and when it retires.
     *
     * @param live whether instances use it now
     */
    @RegisterForReflection
    public record KeyView(String name, String serial, String fingerprint, Instant retireAt, boolean live) {

        /** A secret there is one of. */
        static KeyView secret(String name, String value) {
            return new KeyView(name, null, Fingerprint.of(value), null, true);
        }

        static KeyView rotating(String name, RotatingKey key, Instant now) {
            return new KeyView(name, key.serial(), Fingerprint.of(key.value()), key.retireAt().orElse(null), key.liveAt(now));
        }
    }

    public static OwnerView of(MerchantEntry merchant, Instant now) {
        List<AccountView> accounts = new ArrayList<>();
        merchant.accounts().values().stream().sorted(java.util.Comparator.comparing(Account::provider)).forEach(account -> {
            if (account instanceof Account.SubMerchant sub) {
                List<KeyView> keys = sub.appAuthToken().map(token -> List.of(KeyView.secret("app-auth-token", token)))
                        .orElse(List.of());
                accounts.add(new AccountView(sub.provider().path(), StoredAccount.Mode.SUB_MERCHANT.label(), sub.platform(),
                        sub.subId(), Map.of(), keys));
            } else {
                accounts.add(keys(((Account.Direct) account).keys(), StoredAccount.Mode.DIRECT, now));
            }
        });
        return new OwnerView(merchant.id(), OwnerKind.MERCHANT, merchant.enabled(), merchant.source(), accounts);
    }

    public static OwnerView of(PlatformEntry platform, Instant now) {
        List<AccountView> accounts = platform.keys().values().stream()
                .sorted(java.util.Comparator.comparing(ProviderKeys::provider))
                .map(keys -> keys(keys, StoredAccount.Mode.PLATFORM, now)).toList();
        return new OwnerView(platform.id(), OwnerKind.PLATFORM, platform.enabled(), platform.source(), accounts);
    }

    private static AccountView keys(ProviderKeys keys, StoredAccount.Mode mode, Instant now) {
        Map<String, String> settings = new TreeMap<>();
        List<KeyView> views = new ArrayList<>();
        describe(ProviderModules.of(keys.provider()), keys, settings, views, now);
        return new AccountView(keys.provider().path(), mode.label(), null, null, settings, views);
    }

    private static <K extends ProviderKeys> void describe(ProviderModule<K> module, ProviderKeys keys,
                                                          Map<String, String> settings, List<KeyView> views, Instant now) {
        module.describe(module.cast(keys), settings, views, now);
    }
}
