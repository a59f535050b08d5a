package io.paycallback.registry;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.paycallback.trade.ChannelId;

import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * An account as a row of {@code registry_accounts}: what may be read in a dump in {@code settings}, the secrets
 * apart, to be sealed. The JSON is written and read field by field, so no reflection is needed in a native image and
 * a field of one provider cannot land in another's keys.
 *
 * @param platformId the platform of a sub-merchant; null otherwise
 * @param subId      the sub-merchant's id at the provider; null otherwise
 * @param secrets    the secret fields as JSON, to be sealed; null when the account has none
 */
public record StoredAccount(String ownerId, ChannelId provider, Mode mode, String platformId, String subId,
                            String settings, byte[] secrets) {

    /** How the row's owner is paid at the provider. */
    public enum Mode {
        DIRECT("direct"),
        SUB_MERCHANT("sub-merchant"),
        PLATFORM("platform");

        private final String label;

        Mode(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }

        public static Optional<Mode> of(String label) {
            for (Mode mode : values()) {
                if (mode.label.equals(label)) {
                    return Optional.of(mode);
                }
            }
            return Optional.empty();
        }
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    public static StoredAccount of(String ownerId, Account account) {
        if (account instanceof Account.SubMerchant sub) {
            ObjectNode secrets = JSON.createObjectNode();
            sub.appAuthToken().ifPresent(token -> secrets.put("appAuthToken", token));
            return new StoredAccount(ownerId, sub.provider(), Mode.SUB_MERCHANT, sub.platform(), sub.subId(), "{}",
                    secrets.isEmpty() ? null : bytes(secrets));
        }
        return of(ownerId, ((Account.Direct) account).keys(), Mode.DIRECT);
    }

    public static StoredAccount ofPlatform(String platformId, ProviderKeys keys) {
        return of(platformId, keys, Mode.PLATFORM);
    }

    private static StoredAccount of(String ownerId, ProviderKeys keys, Mode mode) {
        ObjectNode settings = JSON.createObjectNode();
        ObjectNode secrets = JSON.createObjectNode();
        write(ProviderModules.of(keys.provider()), keys, settings, secrets);
        return new StoredAccount(ownerId, keys.provider(), mode, null, null, text(settings),
                secrets.isEmpty() ? null : bytes(secrets));
    }

    private static <K extends ProviderKeys> void write(ProviderModule<K> module, ProviderKeys keys, ObjectNode settings,
                                                       ObjectNode secrets) {
        module.write(module.cast(keys), settings, secrets);
    }

    /** The sub-merchant account of this row. */
    public Account.SubMerchant subMerchant() {
        return new Account.SubMerchant(provider, platformId, subId, Json.optional(secretsNode(), "appAuthToken"));
    }

    /** The keys of a direct or platform row. */
    public ProviderKeys keys() {
        return ProviderModules.of(provider).read(node(settings.getBytes(StandardCharsets.UTF_8)), secretsNode());
    }

    private JsonNode secretsNode() {
        return secrets == null ? JSON.createObjectNode() : node(secrets);
    }

    private static JsonNode node(byte[] json) {
        try {
            return JSON.readTree(json);
        } catch (java.io.IOException e) {
            throw new IllegalStateException("a stored account is not JSON", e);
        }
    }

    private static byte[] bytes(ObjectNode node) {
        return text(node).getBytes(StandardCharsets.UTF_8);
    }

    private static String text(ObjectNode node) {
        try {
            return JSON.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The associated data of the row's sealed secrets: a sealed value opens only on the row it was written for. */
    public static byte[] identity(String ownerId, ChannelId provider) {
        return (ownerId + "/" + provider.path()).getBytes(StandardCharsets.UTF_8);
    }
}
