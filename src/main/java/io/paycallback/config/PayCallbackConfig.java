package io.paycallback.config;

import io.quarkus.runtime.configuration.MemorySize;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import io.smallrye.config.WithName;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * Everything under {@code paycallback.*}. Each key, its default and its effect are in docs/configuration.md, which
 * ConfigurationDocTest holds to this interface: a new key needs its row there.
 */
@ConfigMapping(prefix = "paycallback")
public interface PayCallbackConfig {

    /** The merchant of a callback path without a merchant segment, and of API calls that name none. */
    String DEFAULT_MERCHANT = "default";

    /** Per merchant id (the optional last path segment of a callback; {@code default} when absent). */
    Map<String, Merchant> merchants();

    /**
     * Platforms that collect for sub-merchants, by id: the platform's own keys. A platform's id is the last path
     * segment of the callbacks its endpoint receives, so it may not also be a merchant's id.
     */
    Map<String, Platform> platforms();

    Providers providers();

    Reconcile reconcile();

    Orders orders();

    Statements statements();

    interface Merchant {
        Optional<WxPay> wxpay();

        Optional<Alipay> alipay();

        Optional<Stripe> stripe();

        /** This merchant as a connected account of a Stripe Connect platform; instead of {@link #stripe()}. */
        Optional<StripeConnect> stripeConnect();

        /** This merchant as a sub-merchant (特约商户) of a WeChat Pay partner; instead of {@link #wxpay()}. */
        Optional<WxPayPartner> wxpayPartner();

        /** This merchant as one that authorised a platform's Alipay third-party app; instead of {@link #alipay()}. */
        Optional<AlipayIsv> alipayIsv();
    }

    interface Platform {
        /** A Connect platform: its Connect endpoint's secrets, and its secret key, which acts for connected accounts. */
        Optional<Stripe> stripe();

        /**
         * A WeChat Pay partner (服务商): its own merchant number ({@code sp_mchid}), APIv3 key, WeChat Pay's public keys and
         * its API key, with which it acts for its sub-merchants.
         */
        Optional<WxPay> wxpay();

        /**
         * An Alipay third-party application (第三方应用, ISV): its app id, Alipay's public key for it and its private key,
         * with which it calls for the merchants that authorised it.
         */
        Optional<Alipay> alipay();
    }

    interface AlipayIsv {
        /** The platform's id under {@code paycallback.platforms}. */
        String platform();

        /** The merchant's own app id: a notice's {@code auth_app_id}. */
        String authAppId();

        /** The {@code app_auth_token} the merchant's authorisation gave the platform; enables queries and refunds. */
        Optional<String> appAuthToken();
    }

    interface WxPayPartner {
        /** The platform's id under {@code paycallback.platforms}. */
        String platform();

        /** The sub-merchant's number: a notice's {@code sub_mchid}, and the {@code sub_mchid} of every call. */
        String subMchid();
    }

    interface StripeConnect {
        /** The platform's id under {@code paycallback.platforms}. */
        String platform();

        /** The connected account, {@code acct_...}: an event's {@code account}, and the {@code Stripe-Account} of calls. */
        String account();
    }

    interface WxPay {
        String mchid();

        /** The merchant's APIv3 key: 32 bytes, used as the AES-256-GCM key of the notice resource. */
        String apiV3Key();

        /** Platform certificate serial or {@code PUB_KEY_ID_...} to its public key (PEM or base64 DER); several during rotation. */
        Map<String, String> publicKeys();

        /** Serial of the merchant API certificate; with the private key it enables queries and refund submission. */
        Optional<String> merchantSerial();

        /** The merchant API private key, PEM or base64 DER PKCS#8. */
        Optional<String> merchantPrivateKey();
    }

    interface Alipay {
        String appId();

        /** Alipay's public key, PEM or base64 DER SubjectPublicKeyInfo. */
        String publicKey();

        /** The app's private key (PEM or base64 DER PKCS#8); enables queries and refund submission. */
        Optional<String> appPrivateKey();
    }

    interface Stripe {
        /** Endpoint secrets ({@code whsec_...}); several at once while rotating. */
        List<String> webhookSecrets();

        /** Secret or restricted API key ({@code sk_...}, {@code rk_...}); enables queries and refund submission. */
        Optional<String> apiKey();
    }

    /** The providers' APIs, for queries and refund submission; the defaults are the real endpoints. */
    interface Providers {
        Wxpay wxpay();

        AlipayGateway alipay();

        StripeApi stripe();

        /** Per request, connection included. */
        @WithDefault("10s")
        Duration timeout();

        interface Wxpay {
            @WithDefault("https://api.mch.weixin.qq.com")
            String baseUrl();
        }

        interface AlipayGateway {
            @WithDefault("https://openapi.alipay.com/gateway.do")
            String gatewayUrl();
        }

        interface StripeApi {
            @WithDefault("https://api.stripe.com")
            String baseUrl();
        }
    }

    /** Asking the provider about orders whose callback never came. */
    interface Reconcile {
        /** An order PENDING this long is queried for the first time. */
        @WithDefault("5m")
        Duration after();

        /** Delays of the later queries; after the last one an order still PENDING raises an alert. */
        @WithDefault("5m,15m,1h,6h,24h,48h")
        List<Duration> schedule();

        /** Queries per second, per provider and merchant, on each instance. */
        @WithDefault("20")
        int maxPerSecond();

        /** PENDING orders enrolled for queries per sweep. */
        @WithDefault("500")
        int enrolBatch();
    }

    /** Orders the service closes by itself. */
    interface Orders {
        /**
         * PENDING orders registered longer ago than this are closed at their providers like a close request of the
         * order service (the seed's 关单任务); absent (the default): never.
         */
        Optional<Duration> expireAfter();

        /** Expired orders closed per scan, on each instance. */
        @WithDefault("100")
        int expireBatch();
    }

    /** The daily statement reconciliation: each provider's bill compared with the ledger (statement package). */
    interface Statements {
        /**
         * How long a payment or refund we hold may go unlisted by the provider's bills before it is a discrepancy:
         * providers book around midnight by their own clock, so a neighbouring day's bill may list it.
         */
        @WithDefault("2d")
        Duration crossDayWindow();

        /** How soon a bill the provider is still making (WeChat Pay STATEMENT_CREATING) is asked for again. */
        @WithDefault("30m")
        Duration creatingRetry();

        /** Bill lines per multi-row INSERT while a bill streams into the staging table. */
        @WithDefault("500")
        int insertBatch();

        /** When yesterday's WeChat Pay runs are enrolled, a Quartz cron in Asia/Shanghai (bills exist from ~10:00). */
        @WithName("wxpay.cron")
        @WithDefault("0 30 10 * * ?")
        String wxpayCron();

        /** When yesterday's Alipay runs are enrolled, a Quartz cron in Asia/Shanghai. */
        @WithName("alipay.cron")
        @WithDefault("0 30 10 * * ?")
        String alipayCron();

        /** When yesterday's Stripe runs are enrolled, a Quartz cron in UTC (Stripe's days are UTC days). */
        @WithName("stripe.cron")
        @WithDefault("0 0 2 * * ?")
        String stripeCron();
    }
}
