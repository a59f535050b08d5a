package io.paycallback.channel;

import io.paycallback.channel.alipay.AlipayChannel;
import io.paycallback.channel.alipay.AlipayMerchant;
import io.paycallback.channel.stripe.StripeChannel;
import io.paycallback.channel.stripe.StripeMerchant;
import io.paycallback.channel.wxpay.WxPayChannel;
import io.paycallback.channel.wxpay.WxPayMerchant;
import io.paycallback.config.PayCallbackConfig;
import io.paycallback.trade.ChannelId;
import io.quarkus.runtime.Startup;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.security.PublicKey;
import java.time.Clock;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * The three channels, built once from configuration: each merchant's own keys, and each platform's for its
 * sub-merchants. {@link Startup} makes a bad key fail the application at start
 * rather than at the first callback of that merchant.
 */
@Startup
@ApplicationScoped
public class Channels {

    private static final String PREFIX = "paycallback.merchants.";
    private static final String PLATFORMS = "paycallback.platforms.";

    private final Clock clock;
    private volatile Map<ChannelId, Channel> channels;

    @Inject
    public Channels(PayCallbackConfig config, Clock clock) {
        this(config.merchants(), config.platforms(), clock);
    }

    public Channels(Map<String, PayCallbackConfig.Merchant> merchants, Clock clock) {
        this(merchants, Map.of(), clock);
    }

    /**
     * A platform's endpoint is served under the platform's id with every sub-merchant it has; a sub-merchant's id
     * serves its own sub-merchant only, with the platform's keys (its stored callbacks are read again under its id).
     */
    public Channels(Map<String, PayCallbackConfig.Merchant> merchants, Map<String, PayCallbackConfig.Platform> platforms,
                    Clock clock) {
        this.clock = clock;
        this.channels = build(merchants, platforms, clock);
    }

    /**
     * Serves these merchants and platforms from now on, all of them at once: a callback reads one set or the other.
     *
     * @throws IllegalArgumentException naming the key at fault; the set served before stays
     */
    public void replace(Map<String, PayCallbackConfig.Merchant> merchants, Map<String, PayCallbackConfig.Platform> platforms) {
        this.channels = build(merchants, platforms, clock);
    }

    private static Map<ChannelId, Channel> build(Map<String, PayCallbackConfig.Merchant> merchants,
                                                 Map<String, PayCallbackConfig.Platform> platforms, Clock clock) {
        SubMerchants subMerchants = SubMerchants.of(merchants, platforms);
        Map<String, WxPayMerchant> wxpay = new HashMap<>();
        Map<String, AlipayMerchant> alipay = new HashMap<>();
        Map<String, StripeMerchant> stripe = new HashMap<>();
        merchants.forEach((merchantId, merchant) -> {
            merchant.wxpay().ifPresent(keys -> wxpay.put(merchantId, wxpay(merchantId, keys)));
            merchant.alipay().ifPresent(keys -> alipay.put(merchantId, alipay(merchantId, keys)));
            merchant.stripe().ifPresent(keys -> stripe.put(merchantId, stripe(merchantId, keys)));
        });
        platforms.forEach((platformId, platform) -> {
            String owner = PLATFORMS + platformId;
            platform.stripe().ifPresent(keys -> serve(stripe, platformId, subMerchants.stripeAccounts(platformId),
                    endpoint -> stripe(owner, keys, endpoint)));
            platform.alipay().ifPresent(keys -> serve(alipay, platformId, subMerchants.alipayAuthorisedApps(platformId),
                    endpoint -> alipay(owner, keys, endpoint)));
            platform.wxpay().ifPresent(keys -> serve(wxpay, platformId, subMerchants.wxpaySubMerchants(platformId),
                    endpoint -> wxpay(owner, keys, endpoint)));
        });
        Map<ChannelId, Channel> built = new EnumMap<>(ChannelId.class);
        built.put(ChannelId.WXPAY, new WxPayChannel(wxpay, clock));
        built.put(ChannelId.ALIPAY, new AlipayChannel(alipay));
        built.put(ChannelId.STRIPE, new StripeChannel(stripe, clock));
        return built;
    }

    /** The channel named by a callback path segment ({@code wxpay}, {@code alipay}, {@code stripe}). */
    public Optional<Channel> find(String path) {
        return ChannelId.fromPath(path).map(channels::get);
    }

    public Channel get(ChannelId id) {
        return channels.get(id);
    }

    /**
     * Parses a stored body again, for an operator's replay. Its signature headers are not kept, so it is not verified
     * again: it was when it arrived.
     */
    public Verdict parseStored(String channelPath, String merchantId, CallbackKind kind, byte[] body) {
        return find(channelPath)
                .map(channel -> channel.parseStored(new CallbackRequest(merchantId, kind, Map.of(), body)))
                .orElseGet(() -> new Verdict.Malformed("the row's channel '" + channelPath + "' is unknown"));
    }

    /**
     * A platform's keys under its id, with every sub-merchant it has (none is still a platform's endpoint, whose
     * notices are held until their sub-merchant is configured), and under each sub-merchant's merchant id, with that
     * sub-merchant only.
     *
     * @param subMerchants the provider's id of each sub-merchant to its merchant id
     */
    private static <M> void serve(Map<String, M> served, String platformId, Map<String, String> subMerchants,
                                  Function<Endpoint.Platform, M> keysFor) {
        served.put(platformId, keysFor.apply(new Endpoint.Platform(subMerchants)));
        subMerchants.forEach((subMerchant, merchantId) ->
                served.put(merchantId, keysFor.apply(new Endpoint.Platform(Map.of(subMerchant, merchantId)))));
    }

    private static WxPayMerchant wxpay(String merchantId, PayCallbackConfig.WxPay keys) {
        return wxpay(PREFIX + merchantId, keys, Endpoint.DIRECT);
    }

    private static WxPayMerchant wxpay(String owner, PayCallbackConfig.WxPay keys, Endpoint endpoint) {
        String section = owner + ".wxpay";
        Map<String, PublicKey> publicKeys = new HashMap<>();
        keys.publicKeys().forEach((serial, value) ->
                publicKeys.put(serial, PublicKeys.parse(value, section + ".public-keys." + serial)));
        try {
            return new WxPayMerchant(keys.mchid(), WxPayMerchant.apiV3Key(keys.apiV3Key()), publicKeys, endpoint);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(section + ": " + e.getMessage());
        }
    }

    private static AlipayMerchant alipay(String merchantId, PayCallbackConfig.Alipay keys) {
        return alipay(PREFIX + merchantId, keys, Endpoint.DIRECT);
    }

    private static AlipayMerchant alipay(String owner, PayCallbackConfig.Alipay keys, Endpoint endpoint) {
        String section = owner + ".alipay";
        PublicKey publicKey = PublicKeys.parse(keys.publicKey(), section + ".public-key");
        try {
            return new AlipayMerchant(keys.appId(), publicKey, endpoint);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(section + ": " + e.getMessage());
        }
    }

    private static StripeMerchant stripe(String merchantId, PayCallbackConfig.Stripe keys) {
        return stripe(PREFIX + merchantId, keys, Endpoint.DIRECT);
    }

    private static StripeMerchant stripe(String section, PayCallbackConfig.Stripe keys, Endpoint endpoint) {
        try {
            return new StripeMerchant(keys.webhookSecrets(), endpoint);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(section + ".stripe: " + e.getMessage());
        }
    }
}
