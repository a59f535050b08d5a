package io.paycallback.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The merchants and platforms given in properties, and their provider keys. Every other key under
 * {@code paycallback.*} is mapped by the package it configures (lease/LeaseConfig, outbox/OutboxConfig, ...). Each
 * key, its default and its effect are in docs/configuration.md, which ConfigurationDocTest holds to the mappings: a
 * new key needs its row there.
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

        /**
         * Platform certificate serial or {@code PUB_KEY_ID_...} to its public key (PEM or base64 DER); several during
         * rotation. None, with the API keys below, downloads the platform certificates instead.
         */
        Map<String, String> publicKeys();

        /** Downloads the platform certificates (with the API keys below) beside the keys pinned in public-keys. */
        @WithDefault("false")
        boolean autoCertificates();

        /** Serial of the merchant API certificate; with the private key it enables queries and refund submission. */
        Optional<String> merchantSerial();

        /** The merchant API private key, PEM or base64 DER PKCS#8. */
        Optional<String> merchantPrivateKey();
    }

    interface Alipay {
        String appId();

        /** Alipay's public key, PEM or base64 DER SubjectPublicKeyInfo (public-key mode); or the three certificates below. */
        Optional<String> publicKey();

        /** Public-key certificate mode (公钥证书模式): the app's public-key certificate, PEM ({@code appCertPublicKey_*.crt}). */
        Optional<String> appCertificate();

        /** Alipay's public-key certificate with its issuer, PEM ({@code alipayCertPublicKey_RSA2.crt}). */
        Optional<String> alipayCertificate();

        /** Alipay's root certificates, PEM ({@code alipayRootCert.crt}). */
        Optional<String> alipayRootCertificate();

        /** The app's private key (PEM or base64 DER PKCS#8); enables queries and refund submission. */
        Optional<String> appPrivateKey();
    }

    interface Stripe {
        /** Endpoint secrets ({@code whsec_...}); several at once while rotating. */
        List<String> webhookSecrets();

        /** Secret or restricted API key ({@code sk_...}, {@code rk_...}); enables queries and refund submission. */
        Optional<String> apiKey();
    }

}
