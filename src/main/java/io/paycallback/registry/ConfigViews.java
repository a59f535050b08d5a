package io.paycallback.registry;

import io.paycallback.config.PayCallbackConfig;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The registry's entries in the shapes the channels and the provider clients are built from, the same as properties
 * give them, so both paths build through one code. Their {@code toString}s name no secret.
 */
final class ConfigViews {

    private ConfigViews() {
    }

    static Alipay alipay(ProviderKeys.Alipay keys) {
        return new Alipay(keys.appId(), keys.publicKey(), keys.appPrivateKey());
    }

    record Merchant(Optional<PayCallbackConfig.WxPay> wxpay, Optional<PayCallbackConfig.Alipay> alipay,
                    Optional<PayCallbackConfig.Stripe> stripe, Optional<PayCallbackConfig.StripeConnect> stripeConnect,
                    Optional<PayCallbackConfig.WxPayPartner> wxpayPartner,
                    Optional<PayCallbackConfig.AlipayIsv> alipayIsv) implements PayCallbackConfig.Merchant {
    }

    record Platform(Optional<PayCallbackConfig.Stripe> stripe, Optional<PayCallbackConfig.WxPay> wxpay,
                    Optional<PayCallbackConfig.Alipay> alipay) implements PayCallbackConfig.Platform {
    }

    record WxPay(String mchid, String apiV3Key, Map<String, String> publicKeys, Optional<String> merchantSerial,
                 Optional<String> merchantPrivateKey) implements PayCallbackConfig.WxPay {
        @Override
        public String toString() {
            return "WxPay[" + mchid + "]";
        }
    }

    record Alipay(String appId, String publicKey, Optional<String> appPrivateKey) implements PayCallbackConfig.Alipay {
        @Override
        public String toString() {
            return "Alipay[" + appId + "]";
        }
    }

    record Stripe(List<String> webhookSecrets, Optional<String> apiKey) implements PayCallbackConfig.Stripe {
        @Override
        public String toString() {
            return "Stripe[" + webhookSecrets.size() + " secrets]";
        }
    }

    record StripeConnect(String platform, String account) implements PayCallbackConfig.StripeConnect {
    }

    record WxPayPartner(String platform, String subMchid) implements PayCallbackConfig.WxPayPartner {
    }

    record AlipayIsv(String platform, String authAppId, Optional<String> appAuthToken)
            implements PayCallbackConfig.AlipayIsv {
        @Override
        public String toString() {
            return "AlipayIsv[" + platform + ", " + authAppId + "]";
        }
    }
}
