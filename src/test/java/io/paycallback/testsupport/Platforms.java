package io.paycallback.testsupport;

import io.quarkus.test.junit.QuarkusTestProfile;

import java.util.HashMap;
import java.util.Map;

import static io.paycallback.testsupport.ProviderKeys.ACCOUNT_A;
import static io.paycallback.testsupport.ProviderKeys.ACCOUNT_B;
import static io.paycallback.testsupport.ProviderKeys.PLATFORM;
import static io.paycallback.testsupport.ProviderKeys.SHOP_A;
import static io.paycallback.testsupport.ProviderKeys.SHOP_B;
import static io.paycallback.testsupport.ProviderKeys.SUB_MCHID_A;
import static io.paycallback.testsupport.ProviderKeys.SUB_MCHID_B;

/**
 * The application with a platform beside the direct merchant: {@code market} is a Stripe Connect platform, a WeChat
 * Pay partner (服务商) and an Alipay third-party application, and {@code shop-a} and {@code shop-b} are its
 * sub-merchants on all three. The platform's keys are
 * the run's generated ones ({@link ProviderKeysResource}, by reference): its Connect endpoint has a secret of its own,
 * its API keys are the ones the fake providers know (they tell the platform's calls by the sub-merchant they name, and
 * a partner's WeChat Pay calls by the mchid they are signed for), and as a partner it has its own number and APIv3 key.
 */
public class Platforms implements QuarkusTestProfile {

    @Override
    public Map<String, String> getConfigOverrides() {
        Map<String, String> config = platformKeys();
        subMerchant(config, SHOP_A, ACCOUNT_A, SUB_MCHID_A, ProviderKeys.AUTH_APP_A, ProviderKeys.APP_AUTH_TOKEN_A);
        subMerchant(config, SHOP_B, ACCOUNT_B, SUB_MCHID_B, ProviderKeys.AUTH_APP_B, ProviderKeys.APP_AUTH_TOKEN_B);
        return config;
    }

    /** The platform {@code market} with its keys for all three providers, and no sub-merchant yet. */
    public static Map<String, String> platformKeys() {
        Map<String, String> config = new HashMap<>();
        String platform = "paycallback.platforms." + PLATFORM + ".";
        String direct = "paycallback.merchants." + ProviderKeys.MERCHANT + ".";
        config.put(platform + "stripe.webhook-secrets", "${test.provider-keys.stripe-connect-secret}");
        config.put(platform + "stripe.api-key", "${" + direct + "stripe.api-key}");
        config.put(platform + "wxpay.mchid", ProviderKeys.WX_PARTNER_MCHID);
        config.put(platform + "wxpay.api-v3-key", ProviderKeys.WX_PARTNER_API_V3_KEY);
        config.put(platform + "wxpay.public-keys.\"" + ProviderKeys.WX_SERIAL + "\"", "${test.provider-keys.wx-public}");
        config.put(platform + "wxpay.merchant-serial", "${" + direct + "wxpay.merchant-serial}");
        config.put(platform + "wxpay.merchant-private-key", "${" + direct + "wxpay.merchant-private-key}");
        config.put(platform + "alipay.app-id", ProviderKeys.ALIPAY_ISV_APP_ID);
        config.put(platform + "alipay.public-key", "${test.provider-keys.alipay-public}");
        config.put(platform + "alipay.app-private-key", "${" + direct + "alipay.app-private-key}");
        return config;
    }

    private static void subMerchant(Map<String, String> config, String merchantId, String account, String subMchid,
                                    String authAppId, String appAuthToken) {
        String merchant = "paycallback.merchants." + merchantId + ".";
        config.put(merchant + "stripe-connect.platform", PLATFORM);
        config.put(merchant + "stripe-connect.account", account);
        config.put(merchant + "wxpay-partner.platform", PLATFORM);
        config.put(merchant + "wxpay-partner.sub-mchid", subMchid);
        config.put(merchant + "alipay-isv.platform", PLATFORM);
        config.put(merchant + "alipay-isv.auth-app-id", authAppId);
        config.put(merchant + "alipay-isv.app-auth-token", appAuthToken);
    }
}
