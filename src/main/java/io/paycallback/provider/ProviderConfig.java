package io.paycallback.provider;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

import java.time.Duration;

/** The providers' APIs, for queries and refund submission; the defaults are the real endpoints. */
@ConfigMapping(prefix = "paycallback.providers")
public interface ProviderConfig {

    WxPayApi wxpay();

    AlipayApi alipay();

    StripeApi stripe();

    /** Per request, connection included. */
    @WithDefault("10s")
    Duration timeout();

    interface WxPayApi {
        @WithDefault("https://api.mch.weixin.qq.com")
        String baseUrl();
    }

    interface AlipayApi {
        @WithDefault("https://openapi.alipay.com/gateway.do")
        String gatewayUrl();
    }

    interface StripeApi {
        @WithDefault("https://api.stripe.com")
        String baseUrl();
    }
}
