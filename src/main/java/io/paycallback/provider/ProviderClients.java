package io.paycallback.provider;

import io.paycallback.channel.Channels;
import io.paycallback.channel.PublicKeys;
import io.paycallback.channel.wxpay.WxPayChannel;
import io.paycallback.config.PayCallbackConfig;
import io.paycallback.tracing.Tracing;
import io.paycallback.trade.ChannelId;
import io.quarkus.runtime.Startup;
import io.vertx.core.tracing.TracingPolicy;
import io.vertx.ext.web.client.WebClientOptions;
import io.vertx.mutiny.core.Vertx;
import io.vertx.mutiny.ext.web.client.WebClient;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The provider API clients, built from the merchant registry (at start from properties, then on every change): a merchant gets a client for a provider only when its API
 * keys for it are configured; without them it simply gets no queries or refund submissions there (callbacks still
 * work). A platform's sub-merchant is served with the platform's keys, naming the sub-merchant to the provider.
 * {@link Startup} makes a bad key fail the start, naming the key; {@link Channels}, built first, has checked which
 * merchant is whose sub-merchant.
 */
@Startup
@ApplicationScoped
public class ProviderClients {

    private static final String PREFIX = "paycallback.merchants.";
    private static final String PLATFORMS = "paycallback.platforms.";
    private static final int IDLE_SECONDS = 15;
    private static final Pattern STRIPE_KEY = Pattern.compile("(sk|rk)_[A-Za-z0-9_]+");
    private static final Pattern SERIAL = Pattern.compile("[0-9A-Fa-f]{8,64}");

    /** One provider's client for every merchant served, built together so that a change is served whole. */
    private record Clients(WxPayClient wxpay, AlipayClient alipay, StripeClient stripe) {
    }

    private final WebClient http;
    private final Tracing tracing;
    private final Clock clock;
    private final ProviderConfig providers;
    private final Downloads downloads;
    private volatile Clients clients;

    @Inject
    public ProviderClients(PayCallbackConfig config, ProviderConfig providers, Channels channels, Clock clock, Vertx vertx,
                           Tracing tracing) {
        // Idle connections are dropped before the servers' usual idle timeouts (nginx 75 s, the JDK's HttpServer that
        // the tests' fake providers run on 30 s): a connection reused just as the server closes it fails that call
        // with HttpClosedException, and a close or refund then waits for its backoff instead of answering at once.
        // Each call is a span of ours (ProviderHttp); no traceparent goes to a provider.
        this.http = WebClient.create(vertx, new WebClientOptions().setKeepAliveTimeout(IDLE_SECONDS)
                .setTracingPolicy(TracingPolicy.IGNORE));
        this.tracing = tracing;
        this.clock = clock;
        this.providers = providers;
        this.downloads = new Downloads(providers.timeout(), tracing);
        this.clients = build(config.merchants(), config.platforms(), (WxPayChannel) channels.get(ChannelId.WXPAY));
    }

    /**
     * Serves these merchants and platforms from now on, all providers at once.
     *
     * @param wxpayChannel the WeChat Pay channel serving the same merchants, which verifies WeChat Pay's answers
     * @throws IllegalArgumentException naming the key at fault; the clients served before stay
     */
    public void replace(Map<String, PayCallbackConfig.Merchant> merchants, Map<String, PayCallbackConfig.Platform> platforms,
                        WxPayChannel wxpayChannel) {
        this.clients = build(merchants, platforms, wxpayChannel);
    }

    /** Checks every API key of these merchants and platforms as {@link #replace} would, naming the key at fault. */
    public static void check(Map<String, PayCallbackConfig.Merchant> merchants,
                             Map<String, PayCallbackConfig.Platform> platforms) {
        keys(merchants, platforms);
    }

    private Clients build(Map<String, PayCallbackConfig.Merchant> merchants,
                          Map<String, PayCallbackConfig.Platform> platforms, WxPayChannel wxpayChannel) {
        Keys keys = keys(merchants, platforms);
        return new Clients(
                new WxPayClient(http, tracing, providers.wxpay().baseUrl(), providers.timeout(), clock, wxpayChannel,
                        keys.wxpay(), downloads),
                new AlipayClient(http, tracing, providers.alipay().gatewayUrl(), providers.timeout(), clock, keys.alipay(),
                        downloads),
                new StripeClient(http, tracing, providers.stripe().baseUrl(), providers.timeout(), keys.stripe(), downloads));
    }

    private record Keys(Map<String, WxPayClient.Keys> wxpay, Map<String, AlipayClient.Keys> alipay,
                        Map<String, StripeClient.Keys> stripe) {
    }

    private static Keys keys(Map<String, PayCallbackConfig.Merchant> merchants,
                             Map<String, PayCallbackConfig.Platform> platforms) {
        Map<String, WxPayClient.Keys> wxKeys = new HashMap<>();
        Map<String, AlipayClient.Keys> alipayKeys = new HashMap<>();
        Map<String, StripeClient.Keys> stripeKeys = new HashMap<>();
        merchants.forEach((merchantId, merchant) -> {
            merchant.wxpay().ifPresent(keys -> wxKeys(PREFIX + merchantId, keys, Optional.empty())
                    .ifPresent(k -> wxKeys.put(merchantId, k)));
            merchant.wxpayPartner().flatMap(partner -> platforms.get(partner.platform()).wxpay()
                            .flatMap(keys -> wxKeys(PLATFORMS + partner.platform(), keys, Optional.of(partner.subMchid()))))
                    .ifPresent(k -> wxKeys.put(merchantId, k));
            merchant.alipay().flatMap(keys -> alipayKeys(PREFIX + merchantId, keys, Optional.empty()))
                    .ifPresent(keys -> alipayKeys.put(merchantId, keys));
            merchant.alipayIsv().flatMap(isv -> isv.appAuthToken().flatMap(token -> platforms.get(isv.platform())
                            .alipay().flatMap(keys -> alipayKeys(PLATFORMS + isv.platform(), keys, Optional.of(token)))))
                    .ifPresent(keys -> alipayKeys.put(merchantId, keys));
            merchant.stripe().ifPresent(keys -> keys.apiKey().ifPresent(key -> stripeKeys.put(merchantId,
                    new StripeClient.Keys(stripeKey(key, PREFIX + merchantId + ".stripe.api-key"), Optional.empty()))));
            merchant.stripeConnect().ifPresent(connect -> platforms.get(connect.platform()).stripe()
                    .flatMap(PayCallbackConfig.Stripe::apiKey)
                    .ifPresent(key -> stripeKeys.put(merchantId, new StripeClient.Keys(
                            stripeKey(key, PLATFORMS + connect.platform() + ".stripe.api-key"),
                            Optional.of(connect.account())))));
        });
        return new Keys(wxKeys, alipayKeys, stripeKeys);
    }

    private static Optional<WxPayClient.Keys> wxKeys(String owner, PayCallbackConfig.WxPay keys, Optional<String> subMchid) {
        String section = owner + ".wxpay.";
        if (keys.merchantSerial().isPresent() != keys.merchantPrivateKey().isPresent()) {
            throw new IllegalArgumentException(section + "merchant-serial and " + section
                    + "merchant-private-key go together");
        }
        keys.merchantSerial().filter(serial -> !SERIAL.matcher(serial).matches()).ifPresent(serial -> {
            throw new IllegalArgumentException(section + "merchant-serial is not a certificate serial (hexadecimal)");
        });
        return keys.merchantSerial().map(serial -> new WxPayClient.Keys(keys.mchid(), serial,
                PrivateKeys.parse(keys.merchantPrivateKey().orElseThrow(), section + "merchant-private-key"), subMchid));
    }

    private static Optional<AlipayClient.Keys> alipayKeys(String owner, PayCallbackConfig.Alipay keys,
                                                          Optional<String> appAuthToken) {
        String section = owner + ".alipay.";
        return keys.appPrivateKey().map(key -> new AlipayClient.Keys(keys.appId(),
                PrivateKeys.parse(key, section + "app-private-key"), PublicKeys.parse(keys.publicKey(), section + "public-key"),
                appAuthToken));
    }

    private static String stripeKey(String key, String configKey) {
        if (!STRIPE_KEY.matcher(key).matches()) {
            throw new IllegalArgumentException(configKey + " is not a Stripe secret (sk_...) or restricted (rk_...) key");
        }
        return key;
    }

    @PreDestroy
    void close() {
        http.close();
    }

    public Optional<ProviderClient> find(ChannelId channel, String merchantId) {
        Clients served = clients;
        return switch (channel) {
            case WXPAY -> served.wxpay().serves(merchantId) ? Optional.of(served.wxpay()) : Optional.empty();
            case ALIPAY -> served.alipay().serves(merchantId) ? Optional.of(served.alipay()) : Optional.empty();
            case STRIPE -> served.stripe().serves(merchantId) ? Optional.of(served.stripe()) : Optional.empty();
        };
    }

    /** The provider's bills for this merchant, when it has API keys there (the same keys the queries use). */
    public Optional<StatementClient> statements(ChannelId channel, String merchantId) {
        Clients served = clients;
        return switch (channel) {
            case WXPAY -> served.wxpay().serves(merchantId) ? Optional.of(served.wxpay()) : Optional.empty();
            case ALIPAY -> served.alipay().serves(merchantId) ? Optional.of(served.alipay()) : Optional.empty();
            case STRIPE -> served.stripe().serves(merchantId) ? Optional.of(served.stripe()) : Optional.empty();
        };
    }

    /** Every merchant with API keys for the provider, in a stable order. */
    public List<String> merchants(ChannelId channel) {
        Clients served = clients;
        Set<String> merchants = switch (channel) {
            case WXPAY -> served.wxpay().merchantIds();
            case ALIPAY -> served.alipay().merchantIds();
            case STRIPE -> served.stripe().merchantIds();
        };
        return merchants.stream().sorted().toList();
    }

    /** Every provider this merchant has API keys for. */
    public List<ProviderClient> forMerchant(String merchantId) {
        List<ProviderClient> clients = new ArrayList<>();
        for (ChannelId channel : ChannelId.values()) {
            find(channel, merchantId).ifPresent(clients::add);
        }
        return clients;
    }
}
