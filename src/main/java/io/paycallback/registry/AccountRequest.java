package io.paycallback.registry;

import io.paycallback.trade.ChannelId;
import io.quarkus.runtime.annotations.RegisterForReflection;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * An account as an operator writes it, for any provider and mode: the fields of another provider or mode are refused
 * by name. Secrets are write-only: one left out keeps the value the account has.
 *
 * @param mode {@code direct} or {@code sub-merchant} for a merchant; a platform's keys take no mode
 */
@RegisterForReflection
public record AccountRequest(String mode, String platform, String subId, String appAuthToken,
                             String mchid, String apiV3Key, Map<String, String> publicKeys, String merchantSerial,
                             String merchantPrivateKey, Boolean autoCertificates, String appId, String publicKey,
                             String appCertificate, String alipayCertificate, String alipayRootCertificate,
                             String appPrivateKey, List<String> webhookSecrets, String apiKey) {

    /** A platform's keys as this asks for them, with nothing to keep: what the API writes for a new account. */
    public ProviderKeys platformKeys(ChannelId provider) {
        return platformKeys(provider, Optional.empty());
    }

    /** The merchant's account this asks for, keeping the secrets of {@code existing} that it leaves out. */
    Account merchantAccount(ChannelId provider, Optional<Account> existing) {
        String wanted = mode == null ? StoredAccount.Mode.DIRECT.label() : mode;
        if (StoredAccount.Mode.SUB_MERCHANT.label().equals(wanted)) {
            refuseOthers(provider, "platform", "subId", "appAuthToken");
            if (provider != ChannelId.ALIPAY && appAuthToken != null) {
                throw new IllegalArgumentException("appAuthToken is an Alipay sub-merchant's only");
            }
            Fields.required(platform, "platform");
            Fields.required(subId, "subId");
            Optional<String> keptToken = existing.filter(Account.SubMerchant.class::isInstance)
                    .flatMap(account -> ((Account.SubMerchant) account).appAuthToken());
            return new Account.SubMerchant(provider, platform.strip(), subId.strip(),
                    Fields.keptIfAny(appAuthToken, keptToken));
        }
        if (!StoredAccount.Mode.DIRECT.label().equals(wanted)) {
            throw new IllegalArgumentException("mode is direct or sub-merchant");
        }
        return new Account.Direct(keys(provider, existing.filter(Account.Direct.class::isInstance)
                .map(account -> ((Account.Direct) account).keys())));
    }

    /** A platform's keys this asks for, keeping the secrets of {@code existing} that it leaves out. */
    ProviderKeys platformKeys(ChannelId provider, Optional<ProviderKeys> existing) {
        if (mode != null && !StoredAccount.Mode.PLATFORM.label().equals(mode)) {
            throw new IllegalArgumentException("a platform's keys take no mode");
        }
        return keys(provider, existing);
    }

    private ProviderKeys keys(ChannelId provider, Optional<ProviderKeys> existing) {
        ProviderModule<?> module = ProviderModules.of(provider);
        refuseOthers(provider, module.requestFields().toArray(String[]::new));
        return keys(module, existing);
    }

    private <K extends ProviderKeys> K keys(ProviderModule<K> module, Optional<ProviderKeys> existing) {
        return module.fromRequest(this, existing.map(module::cast));
    }

    private void refuseOthers(ChannelId provider, String... allowed) {
        List<String> permitted = List.of(allowed);
        for (String field : given()) {
            if (!permitted.contains(field)) {
                throw new IllegalArgumentException(field + " is not a field of this " + provider.path()
                        + " account (its fields: " + String.join(", ", permitted) + ")");
            }
        }
    }

    /** The names of the fields this request sets, in the record's order. */
    private List<String> given() {
        List<String> given = new ArrayList<>();
        addIfSet(given, "platform", platform);
        addIfSet(given, "subId", subId);
        addIfSet(given, "appAuthToken", appAuthToken);
        addIfSet(given, "mchid", mchid);
        addIfSet(given, "apiV3Key", apiV3Key);
        addIfSet(given, "publicKeys", publicKeys);
        addIfSet(given, "merchantSerial", merchantSerial);
        addIfSet(given, "merchantPrivateKey", merchantPrivateKey);
        addIfSet(given, "autoCertificates", autoCertificates);
        addIfSet(given, "appId", appId);
        addIfSet(given, "publicKey", publicKey);
        addIfSet(given, "appCertificate", appCertificate);
        addIfSet(given, "alipayCertificate", alipayCertificate);
        addIfSet(given, "alipayRootCertificate", alipayRootCertificate);
        addIfSet(given, "appPrivateKey", appPrivateKey);
        addIfSet(given, "webhookSecrets", webhookSecrets);
        addIfSet(given, "apiKey", apiKey);
        return given;
    }

    private static void addIfSet(List<String> given, String name, Object value) {
        if (value != null) {
            given.add(name);
        }
    }

    @Override
    public String toString() {
        return "AccountRequest[mode=" + mode + ", platform=" + platform + ", subId=" + subId + "]";
    }
}
