package io.paycallback.registry;

import io.paycallback.provider.ProviderClients;

import java.time.Clock;
import java.util.Map;
import java.util.Optional;

/**
 * The checks a start makes of properties, made of one changed owner before it is written: its keys parse, its ids
 * have the provider's shape, a sub-merchant names a platform with keys at that provider and an id no other merchant of
 * that platform has. Only the owner and the platforms it names are built, so a change costs the same with ten
 * merchants or ten thousand; the database's unique keys hold the rest (one owner per id, one merchant per
 * sub-merchant id) against a change made at the same moment elsewhere.
 */
final class RegistryChecks {

    private RegistryChecks() {
    }

    /** @return what is wrong, naming the field; empty when the merchant can be served */
    static Optional<String> merchant(MerchantEntry merchant, RegistryContent content, Clock clock,
                                     ProviderClients.Context context, ParsedKeys parsed) {
        if (!MerchantEntry.isId(merchant.id())) {
            return Optional.of("a merchant id is 1 to 32 letters, digits, '-' or '_', starting with a letter or digit");
        }
        RegistryContent alone = new RegistryContent(Map.of(merchant.id(), merchant.enabled(true)), Map.of());
        for (Account account : merchant.accounts().values()) {
            if (!(account instanceof Account.SubMerchant sub)) {
                continue;
            }
            String field = "merchants." + merchant.id() + "." + sub.provider().path() + ".platform";
            Optional<String> badId = ProviderModules.of(sub.provider()).subIdProblem(sub.subId());
            if (badId.isPresent()) {
                return Optional.of("merchants." + merchant.id() + "." + sub.provider().path() + ".sub-id " + badId.get());
            }
            Optional<PlatformEntry> platform = content.platform(sub.platform());
            if (platform.isEmpty() || !platform.get().keys().containsKey(sub.provider())) {
                return Optional.of(field + " names '" + sub.platform() + "', which has no " + sub.provider().path()
                        + " keys");
            }
            Optional<String> taken = content.merchants().values().stream()
                    .filter(other -> !other.id().equals(merchant.id()))
                    .filter(other -> other.accounts().get(sub.provider()) instanceof Account.SubMerchant theirs
                            && theirs.platform().equals(sub.platform()) && theirs.subId().equals(sub.subId()))
                    .map(MerchantEntry::id).findFirst();
            if (taken.isPresent()) {
                return Optional.of("merchants." + merchant.id() + "." + sub.provider().path() + ".sub-id " + sub.subId()
                        + " is merchant " + taken.get() + "'s at platform " + sub.platform()
                        + ": the notices about it can belong to one merchant only");
            }
            alone = alone.with(platform.get().enabled(true));
        }
        return built(alone, clock, context, parsed);
    }

    static Optional<String> platform(PlatformEntry platform, RegistryContent content, Clock clock,
                                     ProviderClients.Context context, ParsedKeys parsed) {
        if (!MerchantEntry.isId(platform.id())) {
            return Optional.of("a platform id is 1 to 32 letters, digits, '-' or '_', starting with a letter or digit");
        }
        Optional<String> orphaned = content.merchants().values().stream()
                .flatMap(merchant -> merchant.accounts().values().stream()
                        .filter(account -> account instanceof Account.SubMerchant sub && sub.platform().equals(platform.id())
                                && !platform.keys().containsKey(sub.provider()))
                        .map(account -> "merchant " + merchant.id() + " is a " + account.provider().path()
                                + " sub-merchant of " + platform.id() + ": its " + account.provider().path()
                                + " keys stay until that account is removed"))
                .findFirst();
        if (orphaned.isPresent()) {
            return orphaned;
        }
        return built(new RegistryContent(Map.of(), Map.of(platform.id(), platform.enabled(true))), clock, context, parsed);
    }

    private static Optional<String> built(RegistryContent content, Clock clock, ProviderClients.Context context,
                                          ParsedKeys parsed) {
        try {
            Serving.build(content, clock.instant(), clock, context, parsed);
            return Optional.empty();
        } catch (IllegalArgumentException e) {
            return Optional.of(e.getMessage());
        }
    }
}
