package io.paycallback.registry;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.paycallback.channel.Channel;
import io.paycallback.channel.wxpay.PlatformCertificates;
import io.paycallback.channel.wxpay.WxPayChannel;
import io.paycallback.channel.wxpay.WxPayMerchant;
import io.paycallback.config.PayCallbackConfig;
import io.paycallback.provider.ProviderApi;
import io.paycallback.provider.ProviderClients;
import io.paycallback.provider.WxPayClient;
import io.paycallback.trade.ChannelId;

import javax.crypto.SecretKey;
import java.security.PublicKey;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Pattern;

/** WeChat Pay: a merchant's keys, a partner's (服务商) for its sub-merchants ({@code sub_mchid}). */
final class WxPayModule implements ProviderModule<WxPayModule.Keys> {

    private static final Pattern SERIAL = Pattern.compile("[0-9A-Fa-f]{8,64}");

    /**
     * The merchant number, the APIv3 key, WeChat Pay's public keys by serial (several during a rotation), and the API
     * certificate's serial and private key for calls.
     *
     * @param autoCertificates whether the platform certificates are downloaded beside the pinned keys; without pinned
     *                         keys they are downloaded anyway
     */
    record Keys(String mchid, String apiV3Key, List<RotatingKey> publicKeys, Optional<String> merchantSerial,
                Optional<String> merchantPrivateKey, boolean autoCertificates) implements ProviderKeys {
        Keys {
            publicKeys = List.copyOf(publicKeys);
        }

        @Override
        public ChannelId provider() {
            return ChannelId.WXPAY;
        }

        @Override
        public String toString() {
            return "WxPay[mchid=" + mchid + ", publicKeys=" + publicKeys + (autoCertificates ? ", auto-certificates" : "")
                    + "]";
        }
    }

    @Override
    public ChannelId id() {
        return ChannelId.WXPAY;
    }

    @Override
    public Class<Keys> keysType() {
        return Keys.class;
    }

    @Override
    public Optional<Keys> direct(PayCallbackConfig.Merchant merchant) {
        return merchant.wxpay().map(WxPayModule::keys);
    }

    @Override
    public Optional<Account.SubMerchant> subMerchant(PayCallbackConfig.Merchant merchant) {
        return merchant.wxpayPartner().map(partner -> new Account.SubMerchant(ChannelId.WXPAY, partner.platform(),
                partner.subMchid(), Optional.empty()));
    }

    @Override
    public Optional<Keys> platform(PayCallbackConfig.Platform platform) {
        return platform.wxpay().map(WxPayModule::keys);
    }

    private static Keys keys(PayCallbackConfig.WxPay keys) {
        List<RotatingKey> publicKeys = new ArrayList<>();
        new TreeMap<>(keys.publicKeys()).forEach((serial, value) -> publicKeys.add(new RotatingKey(serial, value, Optional.empty())));
        return new Keys(keys.mchid(), keys.apiV3Key(), publicKeys, keys.merchantSerial(), keys.merchantPrivateKey(),
                keys.autoCertificates());
    }

    @Override
    public String subMerchantSection() {
        return "wxpay-partner";
    }

    @Override
    public String subIdProperty() {
        return "sub-mchid";
    }

    @Override
    public Optional<String> subIdProblem(String subId) {
        return WxPayMerchant.isMchid(subId) ? Optional.empty()
                : Optional.of("is not a WeChat Pay merchant number (digits only)");
    }

    @Override
    public void write(Keys keys, ObjectNode settings, ObjectNode secrets) {
        settings.put("mchid", keys.mchid());
        Json.put(settings, "merchantSerial", keys.merchantSerial());
        settings.set("publicKeys", Json.rotating(keys.publicKeys()));
        if (keys.autoCertificates()) {
            settings.put("autoCertificates", true);
        }
        secrets.put("apiV3Key", keys.apiV3Key());
        Json.put(secrets, "merchantPrivateKey", keys.merchantPrivateKey());
    }

    @Override
    public Keys read(JsonNode settings, JsonNode secrets) {
        return new Keys(Json.required(settings, "mchid"), Json.required(secrets, "apiV3Key"),
                Json.rotating(settings.path("publicKeys")), Json.optional(settings, "merchantSerial"),
                Json.optional(secrets, "merchantPrivateKey"), settings.path("autoCertificates").asBoolean(false));
    }

    @Override
    public List<String> requestFields() {
        return List.of("mchid", "apiV3Key", "publicKeys", "merchantSerial", "merchantPrivateKey", "autoCertificates");
    }

    @Override
    public Keys fromRequest(AccountRequest request, Optional<Keys> kept) {
        List<RotatingKey> publicKeys = new ArrayList<>();
        if (request.publicKeys() != null) {
            new TreeMap<>(request.publicKeys()).forEach((serial, value) ->
                    publicKeys.add(new RotatingKey(serial.strip(), value, Optional.empty())));
        } else {
            kept.ifPresent(keys -> publicKeys.addAll(keys.publicKeys()));
        }
        return new Keys(Fields.required(request.mchid(), "mchid"),
                Fields.kept(request.apiV3Key(), kept.map(Keys::apiV3Key), "apiV3Key"), publicKeys,
                Fields.present(request.merchantSerial()),
                Fields.keptIfAny(request.merchantPrivateKey(), kept.flatMap(Keys::merchantPrivateKey)),
                request.autoCertificates() != null ? request.autoCertificates()
                        : kept.map(Keys::autoCertificates).orElse(false));
    }

    @Override
    public void describe(Keys keys, Map<String, String> settings, List<OwnerView.KeyView> keyViews, Instant now) {
        settings.put("mchid", keys.mchid());
        keys.merchantSerial().ifPresent(serial -> settings.put("merchantSerial", serial));
        if (downloadsCertificates(keys)) {
            settings.put("platformCertificates", "downloaded");
        }
        keyViews.add(OwnerView.KeyView.secret("api-v3-key", keys.apiV3Key()));
        keys.merchantPrivateKey().ifPresent(key -> keyViews.add(OwnerView.KeyView.secret("merchant-private-key", key)));
        keys.publicKeys().forEach(key -> keyViews.add(OwnerView.KeyView.rotating("public-key", key, now)));
    }

    @Override
    public List<RotatingKey> rotating(Keys keys) {
        return keys.publicKeys();
    }

    @Override
    public Keys withRotating(Keys keys, List<RotatingKey> rotating) {
        return new Keys(keys.mchid(), keys.apiV3Key(), rotating, keys.merchantSerial(), keys.merchantPrivateKey(),
                keys.autoCertificates());
    }

    @Override
    public Channel channel(List<Served<Keys>> served, Instant now, Clock clock, ProviderClients.Context context,
                           ParsedKeys parsed) {
        Map<String, WxPayMerchant> merchants = new HashMap<>();
        for (Served<Keys> one : served) {
            String section = one.section() + ".wxpay";
            Keys keys = one.keys();
            Map<String, PublicKey> publicKeys = new HashMap<>();
            keys.publicKeys().stream().filter(key -> key.liveAt(now)).forEach(key ->
                    publicKeys.put(key.serial(), parsed.publicKey(key.value(), section + ".public-keys." + key.serial())));
            try {
                SecretKey apiV3Key = WxPayMerchant.apiV3Key(keys.apiV3Key());
                PlatformCertificates certificates = !downloadsCertificates(keys) ? PlatformCertificates.NONE
                        : context.wxpayCertificates().of(keys.mchid(), keys.merchantSerial().orElseThrow(),
                        parsed.privateKey(keys.merchantPrivateKey().orElseThrow(), section + ".merchant-private-key"),
                        apiV3Key, publicKeys);
                merchants.put(one.id(), new WxPayMerchant(keys.mchid(), apiV3Key, publicKeys, one.endpoint(), certificates));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(section + ": " + e.getMessage());
            }
        }
        return new WxPayChannel(merchants, clock);
    }

    /**
     * Certificate mode (证书模式): with API keys to sign the download, and no pinned keys or {@code auto-certificates}.
     * A key pinned with a retirement time still counts as pinned once retired: retiring keys is no switch of mode.
     */
    private static boolean downloadsCertificates(Keys keys) {
        return keys.merchantSerial().isPresent() && keys.merchantPrivateKey().isPresent()
                && (keys.autoCertificates() || keys.publicKeys().isEmpty());
    }

    @Override
    public ProviderApi client(ProviderClients.Context context, Channel channel, List<Caller<Keys>> callers,
                              ParsedKeys parsed) {
        Map<String, WxPayClient.Keys> merchants = new HashMap<>();
        for (Caller<Keys> caller : callers) {
            Keys keys = caller.keys();
            String section = caller.section() + ".wxpay.";
            if (keys.merchantSerial().isPresent() != keys.merchantPrivateKey().isPresent()) {
                throw new IllegalArgumentException(section + "merchant-serial and " + section
                        + "merchant-private-key go together");
            }
            keys.merchantSerial().filter(serial -> !SERIAL.matcher(serial).matches()).ifPresent(serial -> {
                throw new IllegalArgumentException(section + "merchant-serial is not a certificate serial (hexadecimal)");
            });
            keys.merchantSerial().ifPresent(serial -> merchants.put(caller.merchantId(), new WxPayClient.Keys(keys.mchid(),
                    serial, parsed.privateKey(keys.merchantPrivateKey().orElseThrow(), section + "merchant-private-key"),
                    caller.as().map(Account.SubMerchant::subId))));
        }
        return WxPayClient.of(context, (WxPayChannel) channel, merchants);
    }
}
