package io.paycallback.registry;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.paycallback.trade.ChannelId;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
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
        if (keys instanceof ProviderKeys.WxPay wxpay) {
            settings.put("mchid", wxpay.mchid());
            wxpay.merchantSerial().ifPresent(serial -> settings.put("merchantSerial", serial));
            settings.set("publicKeys", rotating(wxpay.publicKeys()));
            secrets.put("apiV3Key", wxpay.apiV3Key());
            wxpay.merchantPrivateKey().ifPresent(key -> secrets.put("merchantPrivateKey", key));
        } else if (keys instanceof ProviderKeys.Alipay alipay) {
            settings.put("appId", alipay.appId());
            settings.put("publicKey", alipay.publicKey());
            alipay.appPrivateKey().ifPresent(key -> secrets.put("appPrivateKey", key));
        } else if (keys instanceof ProviderKeys.Stripe stripe) {
            secrets.set("webhookSecrets", rotating(stripe.webhookSecrets()));
            stripe.apiKey().ifPresent(key -> secrets.put("apiKey", key));
        }
        return new StoredAccount(ownerId, keys.provider(), mode, null, null, text(settings),
                secrets.isEmpty() ? null : bytes(secrets));
    }

    /** The sub-merchant account of this row. */
    public Account.SubMerchant subMerchant() {
        JsonNode secret = secretsNode();
        return new Account.SubMerchant(provider, platformId, subId, optional(secret, "appAuthToken"));
    }

    /** The keys of a direct or platform row. */
    public ProviderKeys keys() {
        JsonNode setting = node(settings.getBytes(StandardCharsets.UTF_8));
        JsonNode secret = secretsNode();
        return switch (provider) {
            case WXPAY -> new ProviderKeys.WxPay(required(setting, "mchid"), required(secret, "apiV3Key"),
                    rotating(setting.path("publicKeys")), optional(setting, "merchantSerial"),
                    optional(secret, "merchantPrivateKey"));
            case ALIPAY -> new ProviderKeys.Alipay(required(setting, "appId"), required(setting, "publicKey"),
                    optional(secret, "appPrivateKey"));
            case STRIPE -> new ProviderKeys.Stripe(rotating(secret.path("webhookSecrets")), optional(secret, "apiKey"));
        };
    }

    private JsonNode secretsNode() {
        return secrets == null ? JSON.createObjectNode() : node(secrets);
    }

    private static ArrayNode rotating(List<RotatingKey> keys) {
        ArrayNode array = JSON.createArrayNode();
        for (RotatingKey key : keys) {
            ObjectNode node = array.addObject();
            node.put("serial", key.serial());
            node.put("value", key.value());
            key.retireAt().ifPresent(at -> node.put("retireAt", at.toString()));
        }
        return array;
    }

    private static List<RotatingKey> rotating(JsonNode array) {
        List<RotatingKey> keys = new ArrayList<>();
        for (JsonNode node : array) {
            keys.add(new RotatingKey(required(node, "serial"), required(node, "value"),
                    optional(node, "retireAt").map(Instant::parse)));
        }
        return keys;
    }

    private static String required(JsonNode node, String field) {
        return optional(node, field).orElseThrow(() -> new IllegalStateException("a stored account lacks " + field));
    }

    private static Optional<String> optional(JsonNode node, String field) {
        JsonNode value = node.get(field);
        return value == null || value.isNull() ? Optional.empty() : Optional.of(value.asText());
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
