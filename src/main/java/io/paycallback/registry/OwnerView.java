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
    }

    public static OwnerView of(MerchantEntry merchant, Instant now) {
        List<AccountView> accounts = new ArrayList<>();
        merchant.accounts().values().stream().sorted(java.util.Comparator.comparing(Account::provider)).forEach(account -> {
            if (account instanceof Account.SubMerchant sub) {
                List<KeyView> keys = sub.appAuthToken().map(token -> List.of(new KeyView("app-auth-token", null,
                        Fingerprint.of(token), null, true))).orElse(List.of());
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
        if (keys instanceof ProviderKeys.WxPay wxpay) {
            settings.put("mchid", wxpay.mchid());
            wxpay.merchantSerial().ifPresent(serial -> settings.put("merchantSerial", serial));
            views.add(secret("api-v3-key", wxpay.apiV3Key()));
            wxpay.merchantPrivateKey().ifPresent(key -> views.add(secret("merchant-private-key", key)));
            wxpay.publicKeys().forEach(key -> views.add(rotating("public-key", key, now)));
        } else if (keys instanceof ProviderKeys.Alipay alipay) {
            settings.put("appId", alipay.appId());
            views.add(secret("public-key", alipay.publicKey()));
            alipay.appPrivateKey().ifPresent(key -> views.add(secret("app-private-key", key)));
        } else if (keys instanceof ProviderKeys.Stripe stripe) {
            stripe.webhookSecrets().forEach(key -> views.add(rotating("webhook-secret", key, now)));
            stripe.apiKey().ifPresent(key -> views.add(secret("api-key", key)));
        }
        return new AccountView(keys.provider().path(), mode.label(), null, null, settings, views);
    }

    private static KeyView secret(String name, String value) {
        return new KeyView(name, null, Fingerprint.of(value), null, true);
    }

    private static KeyView rotating(String name, RotatingKey key, Instant now) {
        return new KeyView(name, key.serial(), Fingerprint.of(key.value()), key.retireAt().orElse(null), key.liveAt(now));
    }
}
