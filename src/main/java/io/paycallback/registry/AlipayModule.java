package io.paycallback.registry;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.paycallback.channel.Channel;
import io.paycallback.channel.alipay.AlipayChannel;
import io.paycallback.channel.alipay.AlipayKeys;
import io.paycallback.channel.alipay.AlipayMerchant;
import io.paycallback.config.PayCallbackConfig;
import io.paycallback.provider.AlipayCertificateKeys;
import io.paycallback.provider.AlipayClient;
import io.paycallback.provider.ProviderApi;
import io.paycallback.provider.ProviderClients;
import io.paycallback.trade.ChannelId;

import java.security.PrivateKey;
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

    /**
     * The application id, Alipay's public key for it (public-key mode) or the certificates of public-key certificate
     * mode, and the application's private key for calls.
     */
    record Keys(String appId, Optional<String> publicKey, Optional<Certificates> certificates,
                Optional<String> appPrivateKey) implements ProviderKeys {
        @Override
        public ChannelId provider() {
            return ChannelId.ALIPAY;
        }

        @Override
        public String toString() {
            return "Alipay[appId=" + appId + (certificates.isPresent() ? ", certificates" : "") + "]";
        }
    }

    /**
     * Public-key certificate mode (公钥证书模式), PEM each: the app's public-key certificate, Alipay's public-key
     * certificate (with its issuer) and Alipay's root certificates.
     */
    record Certificates(String app, String alipay, String root) {
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
        Optional<Certificates> certificates = keys.appCertificate().isEmpty() && keys.alipayCertificate().isEmpty()
                && keys.alipayRootCertificate().isEmpty() ? Optional.empty()
                : Optional.of(new Certificates(keys.appCertificate().orElse(""), keys.alipayCertificate().orElse(""),
                keys.alipayRootCertificate().orElse("")));
        return new Keys(keys.appId(), keys.publicKey(), certificates, keys.appPrivateKey());
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
        Json.put(settings, "publicKey", keys.publicKey());
        keys.certificates().ifPresent(certificates -> {
            settings.put("appCertificate", certificates.app());
            settings.put("alipayCertificate", certificates.alipay());
            settings.put("alipayRootCertificate", certificates.root());
        });
        Json.put(secrets, "appPrivateKey", keys.appPrivateKey());
    }

    @Override
    public Keys read(JsonNode settings, JsonNode secrets) {
        Optional<Certificates> certificates = Json.optional(settings, "appCertificate").map(app -> new Certificates(app,
                Json.required(settings, "alipayCertificate"), Json.required(settings, "alipayRootCertificate")));
        return new Keys(Json.required(settings, "appId"), Json.optional(settings, "publicKey"), certificates,
                Json.optional(secrets, "appPrivateKey"));
    }

    @Override
    public List<String> requestFields() {
        return List.of("appId", "publicKey", "appCertificate", "alipayCertificate", "alipayRootCertificate",
                "appPrivateKey");
    }

    /**
     * Alipay's public key and certificates are not secret, but they too are kept when left out, since operators only
     * see their fingerprints. Naming the public key moves the account to public-key mode, naming a certificate to
     * certificate mode, where each certificate left out is kept.
     */
    @Override
    public Keys fromRequest(AccountRequest request, Optional<Keys> kept) {
        Optional<Certificates> keptCertificates = kept.flatMap(Keys::certificates);
        boolean certified = request.appCertificate() != null || request.alipayCertificate() != null
                || request.alipayRootCertificate() != null || request.publicKey() == null && keptCertificates.isPresent();
        if (certified && request.publicKey() != null) {
            throw new IllegalArgumentException("publicKey is public-key mode, the certificates certificate mode: give one");
        }
        Optional<String> privateKey = Fields.keptIfAny(request.appPrivateKey(), kept.flatMap(Keys::appPrivateKey));
        String appId = Fields.required(request.appId(), "appId");
        if (!certified) {
            return new Keys(appId, Optional.of(Fields.kept(request.publicKey(), kept.flatMap(Keys::publicKey), "publicKey")),
                    Optional.empty(), privateKey);
        }
        return new Keys(appId, Optional.empty(), Optional.of(new Certificates(
                Fields.kept(request.appCertificate(), keptCertificates.map(Certificates::app), "appCertificate"),
                Fields.kept(request.alipayCertificate(), keptCertificates.map(Certificates::alipay), "alipayCertificate"),
                Fields.kept(request.alipayRootCertificate(), keptCertificates.map(Certificates::root),
                        "alipayRootCertificate"))), privateKey);
    }

    @Override
    public void describe(Keys keys, Map<String, String> settings, List<OwnerView.KeyView> keyViews, Instant now) {
        settings.put("appId", keys.appId());
        keys.publicKey().ifPresent(key -> keyViews.add(OwnerView.KeyView.secret("public-key", key)));
        keys.certificates().ifPresent(certificates -> {
            keyViews.add(OwnerView.KeyView.secret("app-certificate", certificates.app()));
            keyViews.add(OwnerView.KeyView.secret("alipay-certificate", certificates.alipay()));
            keyViews.add(OwnerView.KeyView.secret("alipay-root-certificate", certificates.root()));
        });
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
            AlipayKeys alipayKeys = alipayKeys(one.keys(), section + ".", context, parsed);
            try {
                merchants.put(one.id(), new AlipayMerchant(one.keys().appId(), alipayKeys, one.endpoint()));
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
            PrivateKey privateKey = parsed.privateKey(keys.appPrivateKey().get(), section + "app-private-key");
            merchants.put(caller.merchantId(), alipayKeys(keys, section, context, parsed) instanceof AlipayCertificateKeys certified
                    ? AlipayClient.Keys.certified(keys.appId(), privateKey, certified, token.flatMap(t -> t))
                    : new AlipayClient.Keys(keys.appId(), privateKey,
                    parsed.publicKey(keys.publicKey().orElseThrow(), section + "public-key"), token.flatMap(t -> t)));
        }
        return AlipayClient.of(context, merchants);
    }

    /**
     * Alipay's key (public-key mode) or its certificates' keys, shared by every version served with the same
     * certificates, so that a certificate downloaded since is kept.
     *
     * @throws IllegalArgumentException naming the key or certificate at fault, or both modes, or neither
     */
    private static AlipayKeys alipayKeys(Keys keys, String section, ProviderClients.Context context, ParsedKeys parsed) {
        if (keys.publicKey().isPresent() == keys.certificates().isPresent()) {
            throw new IllegalArgumentException(section + "public-key, or " + section + "app-certificate, "
                    + section + "alipay-certificate and " + section + "alipay-root-certificate: one mode, not "
                    + (keys.publicKey().isPresent() ? "both" : "neither"));
        }
        if (keys.publicKey().isPresent()) {
            return AlipayKeys.of(parsed.publicKey(keys.publicKey().get(), section + "public-key"));
        }
        Certificates certificates = keys.certificates().get();
        return context.alipayCertificates().of(certificates.app(), certificates.alipay(), certificates.root(), section);
    }
}
