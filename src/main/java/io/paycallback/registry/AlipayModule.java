package io.paycallback.registry;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.paycallback.channel.Channel;
import io.paycallback.channel.alipay.AlipayChannel;
import io.paycallback.channel.alipay.AlipayMerchant;
import io.paycallback.config.PayCallbackConfig;
import io.paycallback.provider.AlipayClient;
import io.paycallback.provider.ProviderApi;
import io.paycallback.provider.ProviderClients;
import io.paycallback.trade.ChannelId;

import java.time.Clock;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Alipay: a merchant's application, or a platform's third-party application (第三方应用) for the merchants that
 * authorised it ({@code auth_app_id}, and the {@code app_auth_token} of that authorisation for calls).
 */
final class AlipayModule implements ProviderModule<AlipayModule.Keys> {

    /** The application id, Alipay's public key for it, and the application's private key for calls. */
    record Keys(String appId, String publicKey, Optional<String> appPrivateKey) implements ProviderKeys {
        @Override
        public ChannelId provider() {
            return ChannelId.ALIPAY;
        }

        @Override
        public String toString() {
            return "Alipay[appId=" + appId + "]";
        }
    }

    @Override
    public ChannelId id() {
        return ChannelId.ALIPAY;
    }

    @Override
    public Class<Keys> keysType() {
        return Keys.class;
    }

    @Override
    public Optional<Keys> direct(PayCallbackConfig.Merchant merchant) {
        return merchant.alipay().map(AlipayModule::keys);
    }

    @Override
    public Optional<Account.SubMerchant> subMerchant(PayCallbackConfig.Merchant merchant) {
        return merchant.alipayIsv().map(isv -> new Account.SubMerchant(ChannelId.ALIPAY, isv.platform(), isv.authAppId(),
                isv.appAuthToken()));
    }

    @Override
    public Optional<Keys> platform(PayCallbackConfig.Platform platform) {
        return platform.alipay().map(AlipayModule::keys);
    }

    private static Keys keys(PayCallbackConfig.Alipay keys) {
        return new Keys(keys.appId(), keys.publicKey(), keys.appPrivateKey());
    }

    @Override
    public String subMerchantSection() {
        return "alipay-isv";
    }

    @Override
    public String subIdProperty() {
        return "auth-app-id";
    }

    @Override
    public Optional<String> subIdProblem(String subId) {
        return AlipayMerchant.isAppId(subId) ? Optional.empty()
                : Optional.of("is not an Alipay application id (digits only)");
    }

    @Override
    public void write(Keys keys, ObjectNode settings, ObjectNode secrets) {
        settings.put("appId", keys.appId());
        settings.put("publicKey", keys.publicKey());
        Json.put(secrets, "appPrivateKey", keys.appPrivateKey());
    }

    @Override
    public Keys read(JsonNode settings, JsonNode secrets) {
        return new Keys(Json.required(settings, "appId"), Json.required(settings, "publicKey"),
                Json.optional(secrets, "appPrivateKey"));
    }

    @Override
    public List<String> requestFields() {
        return List.of("appId", "publicKey", "appPrivateKey");
    }

    /** Alipay's public key is not secret, but it too is kept when left out, since operators only see its fingerprint. */
    @Override
    public Keys fromRequest(AccountRequest request, Optional<Keys> kept) {
        return new Keys(Fields.required(request.appId(), "appId"),
                Fields.kept(request.publicKey(), kept.map(Keys::publicKey), "publicKey"),
                Fields.keptIfAny(request.appPrivateKey(), kept.flatMap(Keys::appPrivateKey)));
    }

    @Override
    public void describe(Keys keys, Map<String, String> settings, List<OwnerView.KeyView> keyViews, Instant now) {
        settings.put("appId", keys.appId());
        keyViews.add(OwnerView.KeyView.secret("public-key", keys.publicKey()));
        keys.appPrivateKey().ifPresent(key -> keyViews.add(OwnerView.KeyView.secret("app-private-key", key)));
    }

    @Override
    public List<RotatingKey> rotating(Keys keys) {
        return List.of();
    }

    @Override
    public Keys withRotating(Keys keys, List<RotatingKey> rotating) {
        throw new IllegalArgumentException("an Alipay account has one key of each kind: save the account with the new one");
    }

    @Override
    public Channel channel(List<Served<Keys>> served, Instant now, Clock clock, ProviderClients.Context context,
                           ParsedKeys parsed) {
        Map<String, AlipayMerchant> merchants = new HashMap<>();
        for (Served<Keys> one : served) {
            String section = one.section() + ".alipay";
            java.security.PublicKey publicKey = parsed.publicKey(one.keys().publicKey(), section + ".public-key");
            try {
                merchants.put(one.id(), new AlipayMerchant(one.keys().appId(), publicKey, one.endpoint()));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(section + ": " + e.getMessage());
            }
        }
        return new AlipayChannel(merchants);
    }

    @Override
    public ProviderApi client(ProviderClients.Context context, Channel channel, List<Caller<Keys>> callers,
                              ParsedKeys parsed) {
        Map<String, AlipayClient.Keys> merchants = new HashMap<>();
        for (Caller<Keys> caller : callers) {
            Keys keys = caller.keys();
            String section = caller.section() + ".alipay.";
            Optional<Optional<String>> token = caller.as().map(Account.SubMerchant::appAuthToken);
            if (keys.appPrivateKey().isEmpty() || token.filter(Optional::isEmpty).isPresent()) {
                continue;
            }
            merchants.put(caller.merchantId(), new AlipayClient.Keys(keys.appId(),
                    parsed.privateKey(keys.appPrivateKey().get(), section + "app-private-key"),
                    parsed.publicKey(keys.publicKey(), section + "public-key"), token.flatMap(t -> t)));
        }
        return AlipayClient.of(context, merchants);
    }
}
