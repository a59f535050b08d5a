package io.paycallback.registry;

import io.paycallback.trade.ChannelId;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A merchant's or a platform's own keys at one provider. Each provider's keys are a type of their own, so a field of
 * one provider cannot be set on another's account. {@code toString} never shows a secret.
 */
public sealed interface ProviderKeys {

    ChannelId provider();

    /** Every secret this account holds, by the name an operator sees, to its fingerprint. */
    Map<String, String> fingerprints();

    /**
     * WeChat Pay: the merchant number, the APIv3 key, WeChat Pay's public keys by serial (several during a rotation),
     * and the merchant's API certificate serial and private key for calls.
     */
    record WxPay(String mchid, String apiV3Key, List<RotatingKey> publicKeys, Optional<String> merchantSerial,
                 Optional<String> merchantPrivateKey) implements ProviderKeys {
        public WxPay {
            publicKeys = List.copyOf(publicKeys);
        }

        @Override
        public ChannelId provider() {
            return ChannelId.WXPAY;
        }

        @Override
        public Map<String, String> fingerprints() {
            Map<String, String> prints = new LinkedHashMap<>();
            prints.put("api-v3-key", Fingerprint.of(apiV3Key));
            merchantPrivateKey.ifPresent(key -> prints.put("merchant-private-key", Fingerprint.of(key)));
            return prints;
        }


        public WxPay withPublicKeys(List<RotatingKey> keys) {
            return new WxPay(mchid, apiV3Key, keys, merchantSerial, merchantPrivateKey);
        }

        @Override
        public String toString() {
            return "WxPay[mchid=" + mchid + ", publicKeys=" + publicKeys + ", merchantSerial=" + merchantSerial.orElse(null) + "]";
        }
    }

    /** Alipay: the application id, Alipay's public key for it, and the application's private key for calls. */
    record Alipay(String appId, String publicKey, Optional<String> appPrivateKey) implements ProviderKeys {
        @Override
        public ChannelId provider() {
            return ChannelId.ALIPAY;
        }

        @Override
        public Map<String, String> fingerprints() {
            Map<String, String> prints = new LinkedHashMap<>();
            prints.put("public-key", Fingerprint.of(publicKey));
            appPrivateKey.ifPresent(key -> prints.put("app-private-key", Fingerprint.of(key)));
            return prints;
        }


        @Override
        public String toString() {
            return "Alipay[appId=" + appId + "]";
        }
    }

    /** Stripe: the endpoint's signing secrets (several during a rotation) and the API key for calls. */
    record Stripe(List<RotatingKey> webhookSecrets, Optional<String> apiKey) implements ProviderKeys {
        public Stripe {
            webhookSecrets = List.copyOf(webhookSecrets);
        }

        @Override
        public ChannelId provider() {
            return ChannelId.STRIPE;
        }

        @Override
        public Map<String, String> fingerprints() {
            Map<String, String> prints = new LinkedHashMap<>();
            webhookSecrets.forEach(secret -> prints.put("webhook-secret " + secret.serial(), Fingerprint.of(secret.value())));
            apiKey.ifPresent(key -> prints.put("api-key", Fingerprint.of(key)));
            return prints;
        }


        public Stripe withWebhookSecrets(List<RotatingKey> secrets) {
            return new Stripe(secrets, apiKey);
        }

        @Override
        public String toString() {
            return "Stripe[webhookSecrets=" + webhookSecrets + "]";
        }
    }
}
