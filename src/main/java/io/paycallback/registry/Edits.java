package io.paycallback.registry;

import io.paycallback.trade.ChannelId;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * Every change an operator can make to the registry, as a function of the registry as it is when the change is made.
 * Pure, so each rule (what may be retired, what a request may name) is tested without a database.
 */
public final class Edits {

    private Edits() {
    }

    public static Function<RegistryContent, Edit> create(OwnerKind kind, String id) {
        return content -> {
            if (!MerchantEntry.isId(id)) {
                return new Edit.Refused("id: 1 to 32 letters, digits, '-' or '_', starting with a letter or digit");
            }
            if (content.declares(id)) {
                return new Edit.Refused(id + " exists already (a merchant and a platform share one set of ids: the last"
                        + " segment of a callback path)");
            }
            return kind == OwnerKind.MERCHANT
                    ? new Edit.Merchant(null, new MerchantEntry(id, true, Source.DATABASE, Map.of()), "merchant.create",
                    null, "merchant " + id + " created")
                    : new Edit.Platform(null, new PlatformEntry(id, true, Source.DATABASE, Map.of()), "platform.create",
                    null, "platform " + id + " created");
        };
    }

    public static Function<RegistryContent, Edit> enable(OwnerKind kind, String id, boolean enabled) {
        String state = enabled ? "enabled" : "disabled";
        return content -> owner(content, kind, id, merchant -> merchant.enabled() == enabled
                        ? new Edit.Unchanged("merchant " + id + " was " + state + " already; nothing changed")
                        : new Edit.Merchant(merchant, merchant.enabled(enabled), "merchant." + (enabled ? "enable" : "disable"),
                        null, "merchant " + id + " " + state),
                platform -> platform.enabled() == enabled
                        ? new Edit.Unchanged("platform " + id + " was " + state + " already; nothing changed")
                        : new Edit.Platform(platform, platform.enabled(enabled), "platform." + (enabled ? "enable" : "disable"),
                        null, "platform " + id + " " + state));
    }

    public static Function<RegistryContent, Edit> putAccount(OwnerKind kind, String id, ChannelId provider,
                                                             AccountRequest request) {
        return content -> {
            try {
                return owner(content, kind, id,
                        merchant -> new Edit.Merchant(merchant, merchant.with(request.merchantAccount(provider,
                                Optional.ofNullable(merchant.accounts().get(provider)))),
                                "account.put", provider, "merchant " + id + "'s " + provider.path() + " account saved"),
                        platform -> new Edit.Platform(platform, platform.with(request.platformKeys(provider,
                                Optional.ofNullable(platform.keys().get(provider)))),
                                "account.put", provider, "platform " + id + "'s " + provider.path() + " keys saved"));
            } catch (IllegalArgumentException e) {
                return new Edit.Refused(kind.label() + "s." + id + "." + provider.path() + ": " + e.getMessage());
            }
        };
    }

    public static Function<RegistryContent, Edit> removeAccount(OwnerKind kind, String id, ChannelId provider) {
        return content -> owner(content, kind, id,
                merchant -> merchant.accounts().containsKey(provider)
                        ? new Edit.Merchant(merchant, merchant.without(provider), "account.remove", provider,
                        "merchant " + id + "'s " + provider.path() + " account removed")
                        : new Edit.NotFound("merchant " + id + " has no " + provider.path() + " account"),
                platform -> platform.keys().containsKey(provider)
                        ? new Edit.Platform(platform, platform.without(provider), "account.remove", provider,
                        "platform " + id + "'s " + provider.path() + " keys removed")
                        : new Edit.NotFound("platform " + id + " has no " + provider.path() + " keys"));
    }

    /**
     * A new WeChat Pay public key (under its serial) or Stripe endpoint secret beside those in use: every instance
     * verifies with both until the old one is retired.
     */
    public static Function<RegistryContent, Edit> addKey(OwnerKind kind, String id, ChannelId provider, String serial,
                                                         String value) {
        return rotate(kind, id, provider, "key.add", keys -> {
            if (value == null || value.isBlank()) {
                return Optional.of("value is required");
            }
            String theSerial = provider == ChannelId.STRIPE ? Fingerprint.of(value) : serial == null ? "" : serial.strip();
            if (theSerial.isEmpty()) {
                return Optional.of("serial is required: the serial WeChat Pay names the key by (PUB_KEY_ID_... or a"
                        + " certificate serial)");
            }
            if (keys.stream().anyMatch(key -> key.serial().equals(theSerial))) {
                return Optional.of("a key with serial " + theSerial + " is there already");
            }
            keys.add(new RotatingKey(theSerial, value.strip(), Optional.empty()));
            return Optional.empty();
        }, "key added");
    }

    /**
     * Retires a key at {@code at} (now when absent): from then on no instance accepts what it signs. The last key
     * that stays live cannot be retired; its successor comes first.
     */
    public static Function<RegistryContent, Edit> retireKey(OwnerKind kind, String id, ChannelId provider, String serial,
                                                            Instant at) {
        return rotate(kind, id, provider, "key.retire", keys -> {
            int index = -1;
            for (int i = 0; i < keys.size(); i++) {
                if (keys.get(i).serial().equals(serial)) {
                    index = i;
                }
            }
            if (index < 0) {
                return Optional.of("no key with serial " + serial + " (a Stripe secret's serial is its fingerprint)");
            }
            keys.set(index, keys.get(index).retiringAt(at));
            if (keys.stream().noneMatch(key -> key.retireAt().isEmpty())) {
                return Optional.of("that would retire every key: add the successor first, then retire this one");
            }
            return Optional.empty();
        }, "key " + serial + " retires at " + at);
    }

    /** A change of the keys that rotate; it answers why it is refused, or nothing when the list it got is the new one. */
    private interface Rotation {
        Optional<String> apply(List<RotatingKey> keys);
    }

    private static Function<RegistryContent, Edit> rotate(OwnerKind kind, String id, ChannelId provider, String action,
                                                          Rotation change, String summary) {
        String what = kind.label() + " " + id + "'s " + provider.path() + " ";
        ProviderModule<?> module = ProviderModules.of(provider);
        return content -> owner(content, kind, id, merchant -> {
            if (!(merchant.accounts().get(provider) instanceof Account.Direct direct)) {
                return new Edit.NotFound("merchant " + id + " has no " + provider.path() + " keys of its own");
            }
            try {
                return new Edit.Merchant(merchant, merchant.with(new Account.Direct(rotated(module, direct.keys(), change))),
                        action, provider, what + summary);
            } catch (IllegalArgumentException e) {
                return new Edit.Refused(what + "keys: " + e.getMessage());
            }
        }, platform -> {
            ProviderKeys keys = platform.keys().get(provider);
            if (keys == null) {
                return new Edit.NotFound("platform " + id + " has no " + provider.path() + " keys");
            }
            try {
                return new Edit.Platform(platform, platform.with(rotated(module, keys, change)), action, provider,
                        what + summary);
            } catch (IllegalArgumentException e) {
                return new Edit.Refused(what + "keys: " + e.getMessage());
            }
        });
    }

    /** @throws IllegalArgumentException why the rotation is refused */
    private static <K extends ProviderKeys> K rotated(ProviderModule<K> module, ProviderKeys keys, Rotation change) {
        K typed = module.cast(keys);
        List<RotatingKey> rotating = new ArrayList<>(module.rotating(typed));
        Optional<String> refused = change.apply(rotating);
        if (refused.isPresent()) {
            throw new IllegalArgumentException(refused.get());
        }
        return module.withRotating(typed, rotating);
    }

    private static Edit owner(RegistryContent content, OwnerKind kind, String id, Function<MerchantEntry, Edit> merchant,
                              Function<PlatformEntry, Edit> platform) {
        if (kind == OwnerKind.MERCHANT) {
            return content.merchant(id).map(merchant)
                    .orElseGet(() -> new Edit.NotFound("no merchant " + id));
        }
        return content.platform(id).map(platform).orElseGet(() -> new Edit.NotFound("no platform " + id));
    }
}
