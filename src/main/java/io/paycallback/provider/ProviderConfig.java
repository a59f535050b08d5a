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

        Certificates certificates();
    }

    /** WeChat Pay's platform certificates, for merchants that download them rather than pin keys. */
    interface Certificates {
        /** How often a merchant's certificates are downloaded again. */
        @WithDefault("12h")
        Duration refreshInterval();

        /** A notice signed by a serial the merchant lacks downloads them again, at most this often per merchant. */
        @WithDefault("1m")
        Duration leastInterval();

        /** After a failed download (the certificates held are kept), the next is tried this much later. */
        @WithDefault("5m")
        Duration retryInterval();
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
